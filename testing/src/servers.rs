//! Servers the tests start and the tools they need: the binary's tests and the
//! delivery crate's reach one S3 server the same way.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const ACCESS_KEY: &str = "AKIDMASTERCTLTEST";
pub const SECRET_KEY: &str = "s3cr3t-Masterctl-Test-Key";

/// Whether the program `name` runs (`name --version`, or Go's `name version`). When it
/// does not: under CI (`CI` set) the test fails, saying how `.ci/run` installs it
/// (`install`); elsewhere the caller skips that part, with a note.
pub fn installed(name: &str, install: &str) -> bool {
    let found = ["--version", "version"].iter().any(|arg| {
        std::process::Command::new(name)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "{name} is not installed: .ci/run installs it ({install})"
        );
        eprintln!(
            "note: {name} is not installed; the part that needs it is skipped (.ci/run installs it)"
        );
    }
    found
}

/// s3s-fs on a free port of 127.0.0.1, with a bucket `masters`, served in this process;
/// stopped on drop.
pub struct S3 {
    server: Option<tokio::runtime::Runtime>,
    pub root: tempfile::TempDir,
    pub port: u16,
}

impl S3 {
    /// The server, listening.
    pub fn start() -> S3 {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("masters")).unwrap();
        let port = free_port();
        let server = Some(serve_s3(root.path(), port));
        S3 { server, root, port }
    }

    /// Stop the server (as if it crashed: every connection dropped, nothing more
    /// answered); `restart` brings it back on the same data.
    pub fn stop(&mut self) {
        if let Some(server) = self.server.take() {
            server.shutdown_background();
        }
    }

    pub fn restart(&mut self) {
        self.stop();
        self.server = Some(serve_s3(self.root.path(), self.port));
    }
}

impl Drop for S3 {
    fn drop(&mut self) {
        self.stop();
    }
}

/// s3s-fs on `port`, its buckets the folders of `root`, on a runtime of its own: listening
/// when this returns.
fn serve_s3(root: &Path, port: u16) -> tokio::runtime::Runtime {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .build()
        .unwrap();
    let mut builder = s3s::service::S3ServiceBuilder::new(s3s_fs::FileSystem::new(root).unwrap());
    builder.set_auth(s3s::auth::SimpleAuth::from_single(ACCESS_KEY, SECRET_KEY));
    let service = builder.build();
    let start = Instant::now();
    let listener = loop {
        // The port of a server just stopped may take a moment to be free again.
        match runtime.block_on(tokio::net::TcpListener::bind(("127.0.0.1", port))) {
            Ok(listener) => break listener,
            Err(_) if start.elapsed() < Duration::from_secs(20) => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => panic!("s3s-fs could not listen on {port}: {e}"),
        }
    };
    runtime.spawn(async move {
        let http = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                continue;
            };
            let connection = http
                .serve_connection(TokioIo::new(socket), service.clone())
                .into_owned();
            tokio::spawn(async move {
                let _ = connection.await;
            });
        }
    });
    runtime
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether the program at `path` is there. When it is not: under CI the test fails,
/// saying which package `.ci/run` installs; elsewhere the caller skips that part.
pub fn present(path: &str, package: &str) -> bool {
    let found = std::path::Path::new(path).is_file();
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "{path} is not installed: .ci/run installs it (apt-get install {package})"
        );
        eprintln!(
            "note: {path} is not installed; the part that needs it is skipped (.ci/run installs {package})"
        );
    }
    found
}

/// Wait until something listens on `port` of 127.0.0.1.
fn wait_for_port(port: u16, what: &str) {
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{what} did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The user the tests run as (the one sshd lets in with the test key).
pub fn user_name() -> String {
    let out = Command::new("id").arg("-un").output().expect("id runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// OpenSSH's sshd on a free port of 127.0.0.1: its own host key, one authorized test
/// key (held by an ssh-agent of its own), and a `home` whose `.ssh/known_hosts` names
/// the server. Stopped, with the agent, on drop.
pub struct Sshd {
    sshd: Child,
    agent: Child,
    pub dir: tempfile::TempDir,
    pub port: u16,
}

impl Sshd {
    /// The server, or `None` (with a note) when OpenSSH's server is not installed and
    /// this is not CI.
    pub fn start() -> Option<Sshd> {
        if !present("/usr/sbin/sshd", "openssh-server") {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let keygen = |file: &str| {
            let out = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(d.join(file))
                .output()
                .unwrap();
            assert!(out.status.success(), "ssh-keygen");
        };
        keygen("host_key");
        keygen("user_key");
        std::fs::copy(d.join("user_key.pub"), d.join("authorized_keys")).unwrap();
        let port = free_port();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
             StrictModes no\nUsePAM no\nPidFile {d}/sshd.pid\nPermitRootLogin prohibit-password\n\
             SetEnv PATH=/usr/local/bin:/usr/bin:/bin\n",
            d = d.display()
        );
        std::fs::write(d.join("sshd_config"), config).unwrap();
        // Privilege separation wants its folder (Debian's package makes it at boot).
        let _ = std::fs::create_dir_all("/run/sshd");
        let sshd = Command::new("/usr/sbin/sshd")
            .args(["-D", "-e", "-f"])
            .arg(d.join("sshd_config"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(d.join("sshd.log")).unwrap())
            .spawn()
            .expect("sshd starts");
        let socket = d.join("agent.sock");
        let agent = Command::new("ssh-agent")
            .args(["-D", "-a"])
            .arg(&socket)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("ssh-agent starts");
        let start = Instant::now();
        while !socket.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "ssh-agent did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let added = Command::new("ssh-add")
            .arg(d.join("user_key"))
            .env("SSH_AUTH_SOCK", &socket)
            .output()
            .unwrap();
        assert!(
            added.status.success(),
            "ssh-add: {}",
            String::from_utf8_lossy(&added.stderr)
        );
        let home = d.join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        let host_key = std::fs::read_to_string(d.join("host_key.pub")).unwrap();
        let mut fields = host_key.split_whitespace();
        let (kind, key) = (fields.next().unwrap(), fields.next().unwrap());
        std::fs::write(
            home.join(".ssh/known_hosts"),
            format!("[127.0.0.1]:{port} {kind} {key}\n"),
        )
        .unwrap();
        let server = Sshd {
            sshd,
            agent,
            dir,
            port,
        };
        wait_for_port(port, "sshd");
        Some(server)
    }

    /// The home whose known_hosts names this server.
    pub fn home(&self) -> std::path::PathBuf {
        self.dir.path().join("home")
    }

    /// The agent holding the authorized key.
    pub fn agent_socket(&self) -> std::path::PathBuf {
        self.dir.path().join("agent.sock")
    }

    /// `ssh://<user>@127.0.0.1:<port><path>`.
    pub fn url(&self, path: &std::path::Path) -> String {
        format!(
            "ssh://{}@127.0.0.1:{}{}",
            user_name(),
            self.port,
            path.display()
        )
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.sshd.kill();
        let _ = self.sshd.wait();
        let _ = self.agent.kill();
        let _ = self.agent.wait();
    }
}

/// git's smart HTTP (`git http-backend`) behind nginx and fcgiwrap on a free port of
/// 127.0.0.1, serving the bare repositories under `root`, with basic authentication
/// (one user, `alice`, whose password is `PASSWORD`): pushing needs it. Stopped on drop.
pub struct GitHttp {
    nginx: Child,
    fcgiwrap: Child,
    pub dir: tempfile::TempDir,
    pub port: u16,
}

impl GitHttp {
    pub const PASSWORD: &'static str = "pässword-s3cret";

    /// The server, or `None` (with a note) when nginx or fcgiwrap is not installed and
    /// this is not CI.
    pub fn start(root: &std::path::Path) -> Option<GitHttp> {
        if !present("/usr/sbin/nginx", "nginx-light")
            || !present("/usr/sbin/fcgiwrap", "fcgiwrap")
            || !present("/usr/lib/git-core/git-http-backend", "git")
        {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let socket = d.join("fcgiwrap.sock");
        let fcgiwrap = Command::new("/usr/sbin/fcgiwrap")
            .arg("-s")
            .arg(format!("unix:{}", socket.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("fcgiwrap starts");
        let start = Instant::now();
        while !socket.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "fcgiwrap did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::fs::write(
            d.join("htpasswd"),
            format!("alice:{{PLAIN}}{}\n", GitHttp::PASSWORD),
        )
        .unwrap();
        let port = free_port();
        let config = format!(
            "server {{\n    listen 127.0.0.1:{port};\n    client_max_body_size 0;\n\
                 location ~ ^(/.*)$ {{\n      auth_basic \"masters\";\n      auth_basic_user_file {d}/htpasswd;\n\
                   fastcgi_pass unix:{socket};\n\
                   fastcgi_param QUERY_STRING $query_string;\n      fastcgi_param REQUEST_METHOD $request_method;\n\
                   fastcgi_param CONTENT_TYPE $content_type;\n      fastcgi_param CONTENT_LENGTH $content_length;\n\
                   fastcgi_param SCRIPT_FILENAME /usr/lib/git-core/git-http-backend;\n\
                   fastcgi_param GIT_HTTP_EXPORT_ALL \"\";\n      fastcgi_param GIT_PROJECT_ROOT {root};\n\
                   fastcgi_param PATH_INFO $1;\n      fastcgi_param REMOTE_USER $remote_user;\n\
                   fastcgi_param REMOTE_ADDR $remote_addr;\n\
                 }}\n    }}\n",
            d = d.display(),
            socket = socket.display(),
            root = root.display(),
        );
        let nginx = start_nginx(d, &config, &[port]);
        Some(GitHttp {
            nginx,
            fcgiwrap,
            dir,
            port,
        })
    }

    /// `http://127.0.0.1:<port>/<name>`.
    pub fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/{name}", self.port)
    }
}

impl Drop for GitHttp {
    fn drop(&mut self) {
        let _ = self.nginx.kill();
        let _ = self.nginx.wait();
        let _ = self.fcgiwrap.kill();
        let _ = self.fcgiwrap.wait();
    }
}

/// nginx serving the folder `root` over HTTPS on 127.0.0.1, on three free ports: HTTP/2
/// offered by ALPN (`h2`), HTTP/2 allowing two streams at once (`h2_narrow`: a server
/// that caps streams), and HTTP/1.1 only (`h1`). Its certificate is signed by a
/// certificate authority made for it (`ca`, a PEM file to trust through
/// `SSL_CERT_FILE`), both by the `openssl` command. Stopped on drop.
pub struct StaticTls {
    nginx: Child,
    pub dir: tempfile::TempDir,
    pub h2: u16,
    pub h2_narrow: u16,
    pub h1: u16,
}

impl StaticTls {
    /// The server, or `None` (with a note) when nginx or openssl is not installed and
    /// this is not CI.
    pub fn start(root: &std::path::Path) -> Option<StaticTls> {
        if !present("/usr/sbin/nginx", "nginx-light") || !present("/usr/bin/openssl", "openssl") {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        make_certificate(d);
        let (h2, h2_narrow, h1) = (free_port(), free_port(), free_port());
        let config = format!(
            "ssl_certificate {d}/server.pem;\n  ssl_certificate_key {d}/server.key;\n  root {root};\n\
               server {{ listen 127.0.0.1:{h2} ssl http2; }}\n\
               server {{ listen 127.0.0.1:{h2_narrow} ssl http2; http2_max_concurrent_streams 2; }}\n\
               server {{ listen 127.0.0.1:{h1} ssl; }}\n",
            d = d.display(),
            root = root.display(),
        );
        let nginx = start_nginx(d, &config, &[h2, h2_narrow, h1]);
        Some(StaticTls {
            nginx,
            dir,
            h2,
            h2_narrow,
            h1,
        })
    }

    /// The certificate authority's certificate, to trust.
    pub fn ca(&self) -> std::path::PathBuf {
        self.dir.path().join("ca.pem")
    }

    /// `https://127.0.0.1:<port>`.
    pub fn url(port: u16) -> String {
        format!("https://127.0.0.1:{port}")
    }
}

impl Drop for StaticTls {
    fn drop(&mut self) {
        let _ = self.nginx.kill();
        let _ = self.nginx.wait();
    }
}

/// nginx in the foreground with `http` as its `http` block (written with the rest to
/// `d/nginx.conf`), its prefix, temporary folders and error log in `d`; returned once
/// it listens on `ports`.
fn start_nginx(d: &std::path::Path, http: &str, ports: &[u16]) -> Child {
    let config = format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
         events {{ worker_connections 512; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  fastcgi_temp_path {d}/fastcgi;\n\
           proxy_temp_path {d}/proxy;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n{http}}}\n",
        d = d.display()
    );
    std::fs::write(d.join("nginx.conf"), config).unwrap();
    let nginx = Command::new("/usr/sbin/nginx")
        .arg("-p")
        .arg(d)
        .arg("-c")
        .arg(d.join("nginx.conf"))
        .arg("-e")
        .arg(d.join("error.log"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nginx starts");
    for port in ports {
        wait_for_port(*port, "nginx");
    }
    nginx
}

/// In `dir`: a certificate authority (`ca.pem`) and a server certificate for 127.0.0.1
/// it signed (`server.pem`, `server.key`), valid for two days.
fn make_certificate(dir: &std::path::Path) {
    let openssl = |args: &[&str]| {
        let status = Command::new("/usr/bin/openssl")
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .status();
        assert!(status.is_ok_and(|s| s.success()), "openssl {args:?} failed");
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    openssl(
        &[
            &[
                "req",
                "-x509",
                "-days",
                "2",
                "-subj",
                "/CN=masterctl test CA",
            ][..],
            &ec,
            &["-keyout", "ca.key", "-out", "ca.pem"],
        ]
        .concat(),
    );
    openssl(
        &[
            &["req", "-subj", "/CN=127.0.0.1"][..],
            &ec,
            &["-keyout", "server.key", "-out", "server.csr"],
        ]
        .concat(),
    );
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-days",
        "2",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-extfile",
        "server.ext",
        "-out",
        "server.pem",
    ]);
}
