//! One load worker's connection: HTTP/1.1 with keep-alive over one TCP
//! stream, a request written whole and its answer read whole before the next.
//!
//! `loadgen` shares the machine with the server it measures, so what it
//! spends per request is taken from the server. Through `reqwest` a request
//! cost about 35 µs of CPU: the pool's checkout and return, and a task per
//! connection that the request is handed to and the answer handed back from.
//! A load worker sends one request at a time and waits for it, so it needs
//! none of that: it writes the request on its own stream and reads the answer
//! there (the headers parsed by `httparse`, the body by its `Content-Length`,
//! or chunked). The time is taken the same way, from before the write to the
//! last byte of the answer. A connection that fails, or that the server says
//! it will close, is opened again for the next request.

use std::io;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Most bytes of an answer's headers, and of its body, read.
const MAX_HEAD: usize = 16 * 1024;
const MAX_BODY: usize = 1 << 20;

/// Where requests go: `host:port` of an `http://` URL on loopback.
#[derive(Clone, Debug)]
pub(super) struct Target {
    pub addr: String,
}

impl Target {
    /// The address of `url` (`http://HOST:PORT`, with no path).
    pub fn of(url: &str) -> io::Result<Target> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("{url}: an http:// URL is needed")))?;
        let addr = rest.trim_end_matches('/');
        if addr.is_empty() || addr.contains('/') {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{url}: host and port only")));
        }
        let addr = if addr.contains(':') { addr.to_string() } else { format!("{addr}:80") };
        Ok(Target { addr })
    }
}

/// A kept-alive connection, opened when first needed.
pub(super) struct Conn {
    target: Target,
    stream: Option<TcpStream>,
    /// Bytes read past the last answer's end (none with one request at a
    /// time, but kept rather than lost).
    buf: Vec<u8>,
    out: Vec<u8>,
}

/// An answer: its status and body.
pub(super) struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Conn {
    pub fn new(target: Target) -> Conn {
        Conn { target, stream: None, buf: Vec::with_capacity(4096), out: Vec::with_capacity(512) }
    }

    /// POST `body` (JSON) to `path` with the `authorization` header's value.
    /// On an error the connection is dropped, to be opened again next time.
    pub async fn post(&mut self, path: &str, authorization: &str, body: &[u8]) -> io::Result<Answer> {
        let r = self.exchange(path, authorization, body).await;
        match &r {
            Ok((_, keep)) if *keep => {}
            _ => self.stream = None,
        }
        r.map(|(a, _)| a)
    }

    async fn exchange(&mut self, path: &str, authorization: &str, body: &[u8]) -> io::Result<(Answer, bool)> {
        if self.stream.is_none() {
            let s = TcpStream::connect(&self.target.addr).await?;
            s.set_nodelay(true)?;
            self.stream = Some(s);
            self.buf.clear();
        }
        self.out.clear();
        self.out.extend_from_slice(b"POST ");
        self.out.extend_from_slice(path.as_bytes());
        self.out.extend_from_slice(b" HTTP/1.1\r\nhost: ");
        self.out.extend_from_slice(self.target.addr.as_bytes());
        self.out.extend_from_slice(b"\r\nauthorization: ");
        self.out.extend_from_slice(authorization.as_bytes());
        self.out.extend_from_slice(b"\r\ncontent-type: application/json\r\ncontent-length: ");
        self.out.extend_from_slice(body.len().to_string().as_bytes());
        self.out.extend_from_slice(b"\r\n\r\n");
        self.out.extend_from_slice(body);
        let stream = self.stream.as_mut().expect("connected");
        stream.write_all(&self.out).await?;
        read_answer(stream, &mut self.buf).await
    }
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// Read one answer from `stream`, `buf` holding what was read before; leaves
/// any bytes after the answer in `buf`. Returns it and whether the connection
/// stays open.
async fn read_answer(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<(Answer, bool)> {
    // The head.
    let (status, head_len, length, chunked, keep) = loop {
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut resp = httparse::Response::new(&mut headers);
        match resp.parse(buf).map_err(|e| bad(&format!("an answer's head: {e}")))? {
            httparse::Status::Complete(n) => {
                let status = resp.code.ok_or_else(|| bad("no status"))?;
                let (mut length, mut chunked, mut keep) = (None, false, resp.version == Some(1));
                for h in resp.headers.iter() {
                    let v = std::str::from_utf8(h.value).unwrap_or("").trim();
                    if h.name.eq_ignore_ascii_case("content-length") {
                        length = Some(v.parse::<usize>().map_err(|_| bad("content-length"))?);
                    } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                        chunked = v.eq_ignore_ascii_case("chunked");
                    } else if h.name.eq_ignore_ascii_case("connection") {
                        keep = !v.eq_ignore_ascii_case("close");
                    }
                }
                break (status, n, length, chunked, keep);
            }
            httparse::Status::Partial if buf.len() >= MAX_HEAD => return Err(bad("an answer's head is too long")),
            httparse::Status::Partial => fill(stream, buf).await?,
        }
    };
    buf.drain(..head_len);
    let body = if chunked {
        read_chunked(stream, buf).await?
    } else {
        match length {
            Some(n) if n > MAX_BODY => return Err(bad("an answer's body is too long")),
            Some(n) => {
                while buf.len() < n {
                    fill(stream, buf).await?;
                }
                buf.drain(..n).collect()
            }
            // Neither: the body runs to the connection's end.
            None => {
                while fill(stream, buf).await.is_ok() {
                    if buf.len() > MAX_BODY {
                        return Err(bad("an answer's body is too long"));
                    }
                }
                return Ok((Answer { status, body: std::mem::take(buf) }, false));
            }
        }
    };
    Ok((Answer { status, body }, keep))
}

/// Read more into `buf`; the connection's end is an error.
async fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<()> {
    let mut chunk = [0u8; 8192];
    let n = stream.read(&mut chunk).await?;
    if n == 0 {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed the connection"));
    }
    buf.extend_from_slice(&chunk[..n]);
    Ok(())
}

/// A chunked body (RFC 9112 7.1), trailers skipped.
async fn read_chunked(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line = loop {
            if let Some(i) = buf.windows(2).position(|w| w == b"\r\n") {
                break i;
            }
            if buf.len() > MAX_HEAD {
                return Err(bad("a chunk's size line is too long"));
            }
            fill(stream, buf).await?;
        };
        let size = std::str::from_utf8(&buf[..line]).map_err(|_| bad("a chunk's size"))?;
        let size = size.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16).map_err(|_| bad("a chunk's size"))?;
        buf.drain(..line + 2);
        if size == 0 {
            // Trailers, up to the empty line.
            loop {
                if let Some(i) = buf.windows(2).position(|w| w == b"\r\n") {
                    buf.drain(..i + 2);
                    if i == 0 {
                        return Ok(body);
                    }
                } else {
                    fill(stream, buf).await?;
                }
            }
        }
        if body.len() + size > MAX_BODY {
            return Err(bad("an answer's body is too long"));
        }
        while buf.len() < size + 2 {
            fill(stream, buf).await?;
        }
        body.extend_from_slice(&buf[..size]);
        buf.drain(..size + 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    /// A server that answers each request on a connection with the next of
    /// `answers` (raw bytes), then closes.
    async fn serve(answers: Vec<&'static [u8]>) -> (Target, tokio::task::JoinHandle<Vec<String>>) {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let target = Target::of(&format!("http://{}", l.local_addr().unwrap())).unwrap();
        let h = tokio::spawn(async move {
            let (mut s, _) = l.accept().await.unwrap();
            let mut seen = Vec::new();
            for a in answers {
                let mut req = Vec::new();
                // A request ends with its body; these tests send 2-byte bodies.
                while !req.windows(4).any(|w| w == b"\r\n\r\n") || !req.ends_with(b"{}") {
                    let mut b = [0u8; 1024];
                    let n = s.read(&mut b).await.unwrap();
                    if n == 0 {
                        return seen;
                    }
                    req.extend_from_slice(&b[..n]);
                }
                seen.push(String::from_utf8(req).unwrap());
                // Sent in two writes, split inside the head.
                let (x, y) = a.split_at(a.len() / 3);
                s.write_all(x).await.unwrap();
                s.flush().await.unwrap();
                s.write_all(y).await.unwrap();
            }
            seen
        });
        (target, h)
    }

    #[tokio::test]
    async fn answers_by_length_and_chunked_on_one_kept_connection() {
        let (target, server) = serve(vec![
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{\"a\":12345}",
            b"HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"b\"\r\n3;x=1\r\n:1}\r\n0\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        ])
        .await;
        let mut c = Conn::new(target);
        let a = c.post("/api/tables/3/wagers", "Bearer t0k", b"{}").await.unwrap();
        assert_eq!((a.status, a.body.as_slice()), (200, &b"{\"a\":12345}"[..]));
        let b = c.post("/x", "Bearer t0k", b"{}").await.unwrap();
        assert_eq!((b.status, b.body.as_slice()), (409, &b"{\"b\":1}"[..]));
        let e = c.post("/x", "Bearer t0k", b"{}").await.unwrap();
        assert_eq!((e.status, e.body.len()), (200, 0));
        assert!(c.stream.is_none(), "closed as the server said");
        let seen = server.await.unwrap();
        assert_eq!(seen.len(), 3, "one connection, three requests");
        assert!(seen[0].starts_with("POST /api/tables/3/wagers HTTP/1.1\r\n"), "{}", seen[0]);
        assert!(seen[0].contains("\r\nauthorization: Bearer t0k\r\n") && seen[0].contains("content-length: 2\r\n"));
    }

    #[tokio::test]
    async fn a_broken_answer_is_an_error_and_the_next_request_connects_again() {
        let (target, _server) = serve(vec![b"HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n{\"cut\":"]).await;
        let mut c = Conn::new(target.clone());
        assert!(c.post("/x", "Bearer t", b"{}").await.is_err(), "the body is cut short");
        assert!(c.stream.is_none());
        assert!(Target::of("https://127.0.0.1:1").is_err());
        assert!(Target::of("http://127.0.0.1:1/api").is_err());
        assert_eq!(Target::of("http://localhost/").unwrap().addr, "localhost:80");
    }
}
