//! The load client's side of HTTP/1.1.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A minimal HTTP/1.1 keep-alive client for the measured posts: the load
/// generator shares the machine's cores with the service and PostgreSQL,
/// so it should cost about as little as pgbench's own client does (awc
/// took a sixth of the process's time). One connection per client, opened
/// afresh each round since the server closes idle ones.
pub struct Wire {
    stream: TcpStream,
    buffer: Vec<u8>,
}

impl Wire {
    pub async fn open(addr: &str) -> Wire {
        let stream = TcpStream::connect(addr)
            .await
            .expect("connect to the service");
        stream.set_nodelay(true).unwrap();
        Wire {
            stream,
            buffer: Vec::with_capacity(16 * 1024),
        }
    }

    /// POST `body` as JSON; the status and the body of the answer.
    pub async fn post(&mut self, path: &str, token: &str, body: &[u8]) -> (u16, Vec<u8>) {
        self.send("POST", path, token, body).await
    }

    /// GET `path`; the status and the body of the answer.
    pub async fn get(&mut self, path: &str, token: &str) -> (u16, Vec<u8>) {
        self.send("GET", path, token, &[]).await
    }

    async fn send(&mut self, method: &str, path: &str, token: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: posthorn\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let mut request = head.into_bytes();
        request.extend_from_slice(body);
        self.stream
            .write_all(&request)
            .await
            .expect("send the request");
        self.buffer.clear();
        let head_end = loop {
            if let Some(at) = self.buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            self.fill().await;
        };
        let head = std::str::from_utf8(&self.buffer[..head_end]).expect("an ASCII head");
        let status = head[9..12].parse().expect("a status code");
        let length: usize = head
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())?
            })
            .expect("the service sends Content-Length");
        while self.buffer.len() < head_end + length {
            self.fill().await;
        }
        (status, self.buffer[head_end..head_end + length].to_vec())
    }

    async fn fill(&mut self) {
        let mut chunk = [0u8; 8192];
        let n = self.stream.read(&mut chunk).await.expect("read the answer");
        assert!(n > 0, "the service closed the connection mid-answer");
        self.buffer.extend_from_slice(&chunk[..n]);
    }
}
