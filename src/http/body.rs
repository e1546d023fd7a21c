//! The one way a JSON request body is read (docs/decisions/hardening.md):
//! within the size limit (413), within `POSTHORN_BODY_TIMEOUT_SECONDS` of
//! the head (a body trickled byte by byte is cut off with 408; actix itself
//! times out only the head), and with no NUL character in any string —
//! PostgreSQL refuses 0x00 in text, and nobody types one.
//!
//! The JSON is read as the OpenAPI document describes it
//! (docs/decisions/hardening.md), which serde alone does not: serde also
//! fills a struct from an array of its fields in order (`PATCH /v1/me` took
//! `[null, null]`), and reads `2.0` as no integer, though JSON Schema
//! counts it as one. [`Strict`] refuses the first and takes the second.

use super::error::{ApiError, Code};
use crate::state::AppState;
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::StreamExt;
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde_json::{Map, Number, Value};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

pub struct Body<T>(pub T);

impl<T> Body<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

/// Whether a NUL stands anywhere in a JSON value, keys included.
pub fn find_nul(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains('\0'),
        Value::Array(items) => items.iter().any(find_nul),
        Value::Object(fields) => fields.iter().any(|(k, v)| k.contains('\0') || find_nul(v)),
        _ => false,
    }
}

/// The member of the request holding a NUL in its value, named in the
/// refusal as `field` (docs/api.md, "Errors"), where it is one of the top
/// object's.
fn nul_member(value: &Value) -> Option<&str> {
    let fields = value.as_object()?;
    (fields.iter()).find_map(|(k, v)| (!k.contains('\0') && find_nul(v)).then_some(k.as_str()))
}

/// Whether a NUL stands in an object's key (of a free-form value, which
/// the document's string patterns do not reach).
fn nul_in_a_key(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(nul_in_a_key),
        Value::Object(fields) => (fields.iter()).any(|(k, v)| k.contains('\0') || nul_in_a_key(v)),
        _ => false,
    }
}

fn is_json(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            let v = v.trim().to_ascii_lowercase();
            v == "application/json" || (v.starts_with("application/") && v.ends_with("+json"))
        })
}

async fn read_all(mut payload: Payload, limit: usize) -> Result<Vec<u8>, ApiError> {
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk =
            chunk.map_err(|_| ApiError::validation("the request body could not be read"))?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::new(
                Code::PayloadTooLarge,
                format!("the request body is larger than {limit} bytes"),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

impl<T: DeserializeOwned + 'static> FromRequest for Body<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        // The configured limits; the defaults where no state is registered.
        let config = req
            .app_data::<web::Data<AppState>>()
            .map(|s| s.config.clone())
            .unwrap_or_default();
        let (limit, seconds) = (config.max_body_bytes, config.body_timeout_seconds);
        let json = is_json(req);
        let payload = payload.take();
        Box::pin(async move {
            if !json {
                return Err(ApiError::validation(
                    "send JSON with Content-Type: application/json",
                ));
            }
            let read = read_all(payload, limit);
            let bytes = tokio::time::timeout(Duration::from_secs(seconds), read)
                .await
                .map_err(|_| {
                    ApiError::new(
                        Code::RequestTimeout,
                        format!("the request body did not arrive within {seconds} s"),
                    )
                })??;
            let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
                ApiError::validation(format!("the request body is not valid JSON: {e}"))
            })?;
            if find_nul(&value) {
                let said = "text may not contain the NUL character (\\u0000)";
                // A string's pattern says so (400); a key's nothing can (422).
                return Err(if nul_in_a_key(&value) {
                    ApiError::unacceptable(said)
                } else {
                    let refused = ApiError::validation(said);
                    match nul_member(&value) {
                        Some(field) => refused
                            .with("field", Value::from(field))
                            .with("rule", Value::from(crate::error::Rule::Form.as_str())),
                        None => refused,
                    }
                });
            }
            T::deserialize(Strict(value))
                .map(Body)
                .map_err(|e| ApiError::validation(format!("the request body is not valid: {e}")))
        })
    }
}

/// A JSON value read as the document means it: a struct only from an
/// object (at any depth), and a number with no fraction (`2.0`) as an
/// integer wherever an integer is wanted. Everything else is as
/// `serde_json::Value` reads it.
pub struct Strict(pub Value);

impl Strict {
    /// An integral float as the integer it is; other values unchanged.
    fn integral(self) -> Value {
        match self.0 {
            Value::Number(n) if n.is_f64() => {
                let f = n.as_f64().unwrap_or(f64::NAN);
                let whole = f.fract() == 0.0;
                let number = if whole && f >= 0.0 && f < u64::MAX as f64 {
                    Number::from(f as u64)
                } else if whole && f < 0.0 && f >= i64::MIN as f64 {
                    Number::from(f as i64)
                } else {
                    n
                };
                Value::Number(number)
            }
            other => other,
        }
    }
}

macro_rules! integral {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
            self.integral().$method(visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Strict {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        match self.0 {
            Value::Array(items) => {
                let mut seq = de::value::SeqDeserializer::<_, serde_json::Error>::new(
                    items.into_iter().map(Strict),
                );
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            Value::Object(fields) => visit_object(fields, visitor),
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(Strict(other)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_newtype_struct(self)
    }

    /// Only an object fills a struct: serde would take an array of the
    /// fields in order too, which no schema of ours describes.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        match self.0 {
            Value::Object(fields) => visit_object(fields, visitor),
            other => Err(de::Error::invalid_type(
                unexpected(&other),
                &"a JSON object",
            )),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    integral! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
    }

    serde::forward_to_deserialize_any! {
        bool f32 f64 char str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map identifier ignored_any
    }
}

fn visit_object<'de, V: Visitor<'de>>(
    fields: Map<String, Value>,
    visitor: V,
) -> Result<V::Value, serde_json::Error> {
    let mut map = de::value::MapDeserializer::<_, serde_json::Error>::new(
        fields.into_iter().map(|(k, v)| (k, Strict(v))),
    );
    let value = visitor.visit_map(&mut map)?;
    map.end()?;
    Ok(value)
}

impl<'de> IntoDeserializer<'de, serde_json::Error> for Strict {
    type Deserializer = Strict;

    fn into_deserializer(self) -> Strict {
        self
    }
}

fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => de::Unexpected::Unsigned(u),
            (_, Some(i), _) => de::Unexpected::Signed(i),
            (_, _, Some(f)) => de::Unexpected::Float(f),
            _ => de::Unexpected::Other("a number"),
        },
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        a: u8,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        seq: i32,
        name: Option<String>,
        inner: Option<Inner>,
        #[serde(default)]
        list: Vec<Inner>,
        hours: Option<f64>,
        any: Option<Value>,
    }

    fn read<T: DeserializeOwned>(value: Value) -> Result<T, serde_json::Error> {
        T::deserialize(Strict(value))
    }

    #[test]
    fn a_struct_is_read_from_an_object_only_at_any_depth() {
        use serde_json::json;
        let outer: Outer = read(json!({
            "seq": 3, "name": "x", "inner": {"a": 1}, "list": [{"a": 2}],
            "hours": 2, "any": [1, {"b": 2.5}]
        }))
        .unwrap();
        assert_eq!(outer.inner, Some(Inner { a: 1 }));
        assert_eq!(outer.list, vec![Inner { a: 2 }]);
        assert_eq!(outer.hours, Some(2.0));
        assert_eq!(outer.any, Some(json!([1, {"b": 2.5}])));
        // serde_json itself takes all of these; the document allows none.
        for wrong in [
            json!([3, null, null, [], null, null]),
            json!({"seq": 3, "inner": [1]}),
            json!({"seq": 3, "list": [[2]]}),
        ] {
            assert!(serde_json::from_value::<Outer>(wrong.clone()).is_ok());
            assert!(read::<Outer>(wrong.clone()).is_err(), "{wrong}");
        }
        assert!(read::<Outer>(json!({"seq": 3, "extra": 1})).is_err());
        assert!(read::<Outer>(json!({"seq": "3"})).is_err());
    }

    #[test]
    fn an_integral_number_is_an_integer_as_json_schema_counts_it() {
        use serde_json::json;
        let outer: Outer = read(json!({"seq": 7.0, "inner": {"a": 255.0}})).unwrap();
        assert_eq!((outer.seq, outer.inner), (7, Some(Inner { a: 255 })));
        assert_eq!(read::<Outer>(json!({"seq": -2.0})).unwrap().seq, -2);
        for wrong in [json!(7.5), json!(1e300), json!(-0.5), json!(4294967296.0)] {
            assert!(read::<Outer>(json!({"seq": wrong})).is_err(), "{wrong}");
        }
        assert!(read::<Outer>(json!({"seq": 1, "inner": {"a": 256.0}})).is_err());
    }
}
