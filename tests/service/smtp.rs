//! A small real SMTP server for the tests: it speaks enough SMTP for a
//! client to deliver (EHLO, MAIL, RCPT, DATA, QUIT), keeps every message,
//! and can refuse its first connections to exercise retries.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub struct SmtpServer {
    pub addr: SocketAddr,
    pub received: Arc<Mutex<Vec<String>>>,
}

impl SmtpServer {
    /// Listen on loopback; the first `refuse` connections get `421`.
    pub fn start(refuse: usize) -> SmtpServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let refusals = Arc::new(AtomicUsize::new(refuse));
        let store = received.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (store, refusals) = (store.clone(), refusals.clone());
                std::thread::spawn(move || {
                    let refuse = refusals
                        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                        .is_ok();
                    let _ = serve(stream, &store, refuse);
                });
            }
        });
        SmtpServer { addr, received }
    }

    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    pub fn messages(&self) -> Vec<String> {
        self.received.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, store: &Mutex<Vec<String>>, refuse: bool) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    if refuse {
        out.write_all(b"421 test server busy, try again later\r\n")?;
        return Ok(());
    }
    out.write_all(b"220 posthorn-test ESMTP\r\n")?;
    let mut lines = BufReader::new(stream);
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let verb = line.get(..4).unwrap_or_default().to_ascii_uppercase();
        match verb.as_str() {
            "EHLO" | "HELO" => out.write_all(b"250-posthorn-test\r\n250 8BITMIME\r\n")?,
            "MAIL" | "RCPT" | "RSET" | "NOOP" => out.write_all(b"250 OK\r\n")?,
            "DATA" => {
                out.write_all(b"354 go ahead\r\n")?;
                let mut message = String::new();
                loop {
                    line.clear();
                    lines.read_line(&mut line)?;
                    if line == ".\r\n" || line.is_empty() {
                        break;
                    }
                    message.push_str(
                        line.strip_prefix('.')
                            .filter(|_| line.starts_with(".."))
                            .unwrap_or(&line),
                    );
                }
                store.lock().unwrap().push(message);
                out.write_all(b"250 queued\r\n")?;
            }
            "QUIT" => {
                out.write_all(b"221 bye\r\n")?;
                return Ok(());
            }
            _ => out.write_all(b"502 not implemented\r\n")?,
        }
    }
}
