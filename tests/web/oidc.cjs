// Issue #47 in the browser: a local OpenID Connect issuer standing in for
// Google, so the web client's redirect sign-in runs end to end. Run by
// tests/web/run before the service (`node tests/web/oidc.cjs PORT`), which
// is told to trust its keys and to send browsers to its /authorize.
//  - GET /google/keys: the JSON Web Key Set (one RSA key, made at start).
//  - GET /authorize?client_id&redirect_uri&response_type=id_token&nonce
//    &state: answers at once, as Google does for a person already signed
//    in there, with a 302 to `redirect_uri#id_token=…&state=…`. The token
//    is RS256 with the claims Google signs, `aud` the client id asked
//    for. Who is signed in "at Google" is the browser's: the cookie
//    `google_account` (set on a context by `atGoogle`), `sub:email`.
"use strict";
const crypto = require("crypto");
const http = require("http");

const ISSUER = "https://accounts.google.com";

function serve(port) {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = "web-test-" + crypto.randomBytes(4).toString("hex");
  const jwk = Object.assign(publicKey.export({ format: "jwk" }), { kid, alg: "RS256", use: "sig" });
  const b64 = (value) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
  const sign = (claims) => {
    const signed = b64({ alg: "RS256", typ: "JWT", kid }) + "." + b64(claims);
    return signed + "." + crypto.sign("sha256", Buffer.from(signed), privateKey).toString("base64url");
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    if (url.pathname === "/google/keys") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ keys: [jwk] }));
    }
    if (url.pathname !== "/authorize") {
      res.writeHead(404);
      return res.end();
    }
    const q = url.searchParams;
    const cookie = /(?:^|;\s*)google_account=([^;]+)/.exec(req.headers.cookie || "");
    const [sub, email] = decodeURIComponent(cookie ? cookie[1] : q.get("login_hint") || "").split(":");
    const redirect = q.get("redirect_uri");
    if (!sub || !redirect || q.get("response_type") !== "id_token" || !q.get("nonce")) {
      res.writeHead(400, { "content-type": "text/plain" });
      return res.end("the test issuer needs a signed-in account, a redirect_uri, response_type=id_token and a nonce");
    }
    const now = Math.floor(Date.now() / 1000);
    const token = sign({ iss: ISSUER, aud: q.get("client_id"), sub, email, email_verified: true, iat: now, exp: now + 3600, nonce: q.get("nonce") });
    const back = new URLSearchParams({ id_token: token, state: q.get("state") || "" });
    res.writeHead(302, { location: redirect + "#" + back });
    res.end();
  });
  server.listen(port, "127.0.0.1");
  return server;
}

/// The browser context `context` signed in "at Google" as `sub` (with the
/// address `email`): the next sign-in with Google there is theirs.
async function atGoogle(context, sub, email) {
  await context.addCookies([{ name: "google_account", value: encodeURIComponent(sub + ":" + email), url: process.env.OIDC }]);
}

if (require.main === module) serve(Number(process.argv[2]));

module.exports = { atGoogle };
