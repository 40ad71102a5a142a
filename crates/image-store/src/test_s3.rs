//! An S3-compatible server in the test's process: `s3s` over a directory (`s3s-fs`), with one access key,
//! on a free port of 127.0.0.1. Tests of the S3 backend open an [`ImageStore`] against it.

use crate::ImageStore;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder as ConnBuilder;

pub const ACCESS_KEY: &str = "launchpad-test";
pub const SECRET_KEY: &str = "launchpad-test-secret";

/// A running server; it stops when dropped.
pub struct S3Server {
    pub endpoint: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl S3Server {
    /// Serves the buckets under `root` (each a directory; `buckets` are made).
    pub async fn start(root: &std::path::Path, buckets: &[&str]) -> std::io::Result<Self> {
        for bucket in buckets {
            std::fs::create_dir_all(root.join(bucket))?;
        }
        let fs =
            s3s_fs::FileSystem::new(root).map_err(|e| std::io::Error::other(format!("{e:?}")))?;
        let mut builder = s3s::service::S3ServiceBuilder::new(fs);
        builder.set_auth(s3s::auth::SimpleAuth::from_single(ACCESS_KEY, SECRET_KEY));
        let service = builder.build();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let endpoint = format!("http://{}", listener.local_addr()?);
        let task = tokio::spawn(async move {
            let http = ConnBuilder::new(TokioExecutor::new());
            while let Ok((socket, _)) = listener.accept().await {
                let conn = http
                    .serve_connection(TokioIo::new(socket), service.clone())
                    .into_owned();
                tokio::spawn(async move {
                    let _ = conn.await;
                });
            }
        });
        Ok(S3Server { endpoint, task })
    }

    /// The settings an [`ImageStore`] reaches this server with (what `AWS_*` would give in production).
    pub fn options(&self) -> Vec<(&'static str, String)> {
        vec![
            ("aws_endpoint", self.endpoint.clone()),
            ("aws_allow_http", "true".into()),
            ("aws_region", "us-east-1".into()),
            ("aws_access_key_id", ACCESS_KEY.into()),
            ("aws_secret_access_key", SECRET_KEY.into()),
        ]
    }

    /// A store on `location` (`s3://<bucket>[/<prefix>]`) of this server.
    pub fn open(&self, location: &str) -> crate::Result<ImageStore> {
        ImageStore::open_with(location, self.options())
    }
}
