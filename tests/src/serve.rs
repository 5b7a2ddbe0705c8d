//! `hookhost serve` as a process, for every suite that talks to one: started with its
//! arguments, its address read from the first line it prints, its stderr kept, killed
//! when dropped.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

/// A running `hookhost serve`, killed (and waited for) when dropped.
pub struct Served {
    /// The process.
    pub child: Child,
    /// `http://ADDR` (TCP) or `unix:PATH`.
    pub addr: String,
    stderr: Arc<Mutex<String>>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    /// `bin serve --own-files --all-projects` on a free loopback port, for the owner whose
    /// home is `home` (its token generated there on first start), in `dir`; panics when it
    /// does not start.
    pub fn own_files(bin: &str, dir: &Path, home: &Path) -> Served {
        let home = home.to_str().expect("a UTF-8 home");
        Served::start(
            bin,
            dir,
            &[
                "--own-files",
                "--all-projects",
                "--listen",
                "127.0.0.1:0",
                "--home",
                home,
            ],
            &[],
        )
        .unwrap_or_else(|why| panic!("serve did not start: {why}"))
    }

    /// Starts `bin serve ARGS` in `dir`, with `env` added to its environment. `Err`
    /// holds what it printed when it did not start listening.
    pub fn start(
        bin: &str,
        dir: &Path,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Result<Served, String> {
        let mut child = Command::new(bin)
            .arg("serve")
            .args(args)
            .current_dir(dir)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run hookhost serve");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().expect("stderr piped");
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let mut line = String::new();
        let _ = BufReader::new(child.stdout.take().expect("stdout piped")).read_line(&mut line);
        let Some(addr) = line.trim().strip_prefix("listening on ") else {
            let _ = child.kill();
            let _ = child.wait();
            std::thread::sleep(std::time::Duration::from_millis(100));
            let printed = stderr.lock().unwrap_or_else(|e| e.into_inner()).clone();
            return Err(format!("{line}{printed}"));
        };
        let addr = if addr.starts_with("unix:") {
            addr.to_string()
        } else {
            format!("http://{addr}")
        };
        Ok(Served {
            child,
            addr,
            stderr,
        })
    }

    /// The owner's warm engine: `bin serve --warm` with the owner's folders as the
    /// installed hook command names them (`--home H --config-dir … --state-dir …
    /// --cache-dir …`); panics when it does not start.
    pub fn warm(bin: &str, dir: &Path, locations: &[String]) -> Served {
        let mut args = vec!["--warm"];
        args.extend(locations.iter().map(String::as_str));
        Served::start(bin, dir, &args, &[])
            .unwrap_or_else(|why| panic!("the warm engine did not start: {why}"))
    }

    /// How many hook calls this server answered (its `/metrics`; a unix socket only).
    pub fn calls(&self) -> u64 {
        use std::io::Write;
        let socket = self.addr.strip_prefix("unix:").expect("a unix socket");
        let mut stream = std::os::unix::net::UnixStream::connect(socket).expect("connect");
        stream
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .expect("ask for /metrics");
        let mut text = String::new();
        let _ = stream.read_to_string(&mut text);
        text.lines()
            .filter(|line| line.starts_with("hookhost_calls_total{"))
            .filter_map(|line| line.rsplit(' ').next()?.parse::<u64>().ok())
            .sum()
    }

    /// The URL of `path` on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.addr)
    }

    /// `HOST:PORT` (TCP only).
    pub fn host_port(&self) -> &str {
        self.addr.trim_start_matches("http://")
    }

    /// What it wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}
