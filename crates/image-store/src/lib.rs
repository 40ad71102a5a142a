//! Where images live: their bytes, named by their SHA-256 (64 lowercase hex digits), in an object store
//! through the `object_store` crate — a local directory by default, an S3-compatible bucket where
//! configured, memory in tests — never in the database.
//!
//! The store keeps bytes only. What may be stored is decided before: an image is checked and its format
//! read by the one pipeline that validates images (the API's `routes::launch::images::check`, formats by
//! `web::image::sniff`); whoever reads an image back sniffs its content type from its bytes the same way.
//!
//! ```text
//!  location (--image-store, IMAGE_STORE)      store
//!  images   /var/lib/launchpad/images         a local directory (made when missing)
//!  file:///var/lib/launchpad/images           the same, as a URL
//!  s3://bucket  s3://bucket/some/prefix       an S3-compatible bucket: credentials, region and endpoint from
//!                                             AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION,
//!                                             AWS_ENDPOINT (MinIO, R2, ...), AWS_ALLOW_HTTP
//!  memory:                                    memory (tests, the local stack)
//! ```
//!
//! Each user of the store has its own namespace ([`ImageStore::namespace`]: `launches/`, `avatars/`, ...):
//! deleting an image of one (the prepared-launch sweeper does) never takes another's copy of the same bytes.

use bytes::Bytes;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt as _};
use std::sync::Arc;

/// What went wrong, with the store's own message.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A name that is not a SHA-256 in lowercase hex (never sent to the store).
    #[error("`{0}` is not a SHA-256 in lowercase hex")]
    InvalidHash(String),
    /// A location that names no store this crate opens.
    #[error("image store `{location}`: {message}")]
    Location { location: String, message: String },
    #[error("image store: {0}")]
    Store(#[from] object_store::Error),
}

pub type Result<T> = std::result::Result<T, Error>;

/// Images by their SHA-256 in one namespace of an object store. Cheap to clone.
#[derive(Clone, Debug)]
pub struct ImageStore {
    objects: Arc<dyn ObjectStore>,
    /// The bucket's prefix and the namespace, without a trailing `/`.
    prefix: Path,
    location: String,
}

/// Whether `hash` names an image: 64 lowercase hex digits.
pub fn is_hash(hash: &str) -> bool {
    hash.len() == 64 && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

impl ImageStore {
    /// Opens the store `location` names (see the crate's documentation), S3 settings from the
    /// environment (`AWS_*`).
    pub fn open(location: &str) -> Result<Self> {
        Self::open_with(location, std::iter::empty::<(String, String)>())
    }

    /// [`ImageStore::open`] with S3 settings given as `object_store`'s keys (`aws_endpoint`,
    /// `aws_access_key_id`, `aws_secret_access_key`, `aws_region`, `aws_allow_http`, ...), over the
    /// environment's.
    pub fn open_with<K, V>(location: &str, s3: impl IntoIterator<Item = (K, V)>) -> Result<Self>
    where
        K: AsRef<str>,
        V: Into<String>,
    {
        let bad = |message: String| Error::Location {
            location: location.to_string(),
            message,
        };
        if location == "memory:" || location == "memory://" {
            return Ok(Self::memory());
        }
        let (objects, prefix): (Arc<dyn ObjectStore>, Path) = match location.split_once("://") {
            None => (local(std::path::Path::new(location)).map_err(bad)?, Path::default()),
            Some(("file", path)) => (local(std::path::Path::new(path)).map_err(bad)?, Path::default()),
            Some(("s3", _)) => {
                let url = url::Url::parse(location).map_err(|e| bad(e.to_string()))?;
                let bucket = url
                    .host_str()
                    .filter(|b| !b.is_empty())
                    .ok_or_else(|| bad("no bucket: s3://<bucket>[/<prefix>]".into()))?;
                let mut builder = object_store::aws::AmazonS3Builder::from_env().with_bucket_name(bucket);
                for (key, value) in s3 {
                    let key = key
                        .as_ref()
                        .parse::<object_store::aws::AmazonS3ConfigKey>()
                        .map_err(|e| bad(e.to_string()))?;
                    builder = builder.with_config(key, value);
                }
                let store = builder.build().map_err(|e| bad(e.to_string()))?;
                let prefix = Path::parse(url.path().trim_matches('/')).map_err(|e| bad(e.to_string()))?;
                (Arc::new(store), prefix)
            }
            Some((scheme, _)) => {
                return Err(bad(format!(
                    "`{scheme}://` is not a store this service opens: a directory, file://, s3:// or memory:"
                )))
            }
        };
        Ok(ImageStore {
            objects,
            prefix,
            location: redacted(location),
        })
    }

    /// A store in memory, empty.
    pub fn memory() -> Self {
        ImageStore {
            objects: Arc::new(object_store::memory::InMemory::new()),
            prefix: Path::default(),
            location: "memory:".into(),
        }
    }

    /// The same store, in namespace `name` (a path segment: `launches`, `avatars`, ...).
    pub fn namespace(&self, name: &str) -> Self {
        ImageStore {
            objects: self.objects.clone(),
            prefix: self.prefix.clone().join(name),
            location: format!("{}/{name}", self.location.trim_end_matches('/')),
        }
    }

    /// Where this store is (the location it was opened with and its namespace; never a credential).
    pub fn location(&self) -> &str {
        &self.location
    }

    fn path(&self, hash: &str) -> Result<Path> {
        if !is_hash(hash) {
            return Err(Error::InvalidHash(hash.chars().take(80).collect()));
        }
        Ok(self.prefix.clone().join(hash))
    }

    /// Stores `bytes` as `hash` (which the caller computed: the SHA-256 of `bytes`); storing it again
    /// writes the same bytes.
    pub async fn put(&self, hash: &str, bytes: impl Into<Bytes>) -> Result<()> {
        let path = self.path(hash)?;
        self.objects.put(&path, bytes.into().into()).await?;
        Ok(())
    }

    /// The bytes stored as `hash`, if any.
    pub async fn get(&self, hash: &str) -> Result<Option<Bytes>> {
        let path = self.path(hash)?;
        match self.objects.get(&path).await {
            Ok(found) => Ok(Some(found.bytes().await?)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Whether `hash` is stored.
    pub async fn contains(&self, hash: &str) -> Result<bool> {
        let path = self.path(hash)?;
        match self.objects.head(&path).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes `hash`; deleting an image not stored is no error.
    pub async fn delete(&self, hash: &str) -> Result<()> {
        let path = self.path(hash)?;
        match self.objects.delete(&path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

/// A local directory, made when missing.
fn local(dir: &std::path::Path) -> std::result::Result<Arc<dyn ObjectStore>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("making {}: {e}", dir.display()))?;
    let store = object_store::local::LocalFileSystem::new_with_prefix(dir)
        .map_err(|e| e.to_string())?
        .with_automatic_cleanup(true);
    Ok(Arc::new(store))
}

/// `location` without a userinfo part (`s3://key:secret@bucket` is not how credentials are given, but a
/// log must not show one if someone tries).
fn redacted(location: &str) -> String {
    match url::Url::parse(location) {
        Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.to_string()
        }
        _ => location.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[tokio::test]
    async fn a_directory_round_trips_and_namespaces_are_apart() {
        let dir = tempfile::tempdir().unwrap();
        let root = ImageStore::open(dir.path().join("images").to_str().unwrap()).unwrap();
        let launches = root.namespace("launches");
        let avatars = root.namespace("avatars");
        assert_eq!(launches.get(H).await.unwrap(), None);
        launches.put(H, b"test".to_vec()).await.unwrap();
        assert_eq!(launches.get(H).await.unwrap().unwrap(), &b"test"[..]);
        assert!(launches.contains(H).await.unwrap());
        assert!(dir.path().join("images/launches").join(H).is_file());
        avatars.put(H, b"test".to_vec()).await.unwrap();
        launches.delete(H).await.unwrap();
        launches.delete(H).await.unwrap();
        assert_eq!(launches.get(H).await.unwrap(), None);
        assert!(avatars.contains(H).await.unwrap());
        // The same directory opened as a URL sees the same images.
        let url = format!("file://{}", dir.path().join("images").display());
        let again = ImageStore::open(&url).unwrap().namespace("avatars");
        assert_eq!(again.get(H).await.unwrap().unwrap(), &b"test"[..]);
    }

    #[tokio::test]
    async fn names_that_are_not_hashes_never_reach_the_store() {
        let store = ImageStore::memory();
        for bad in ["../etc/passwd", "ABC", &H.to_uppercase(), &H[1..]] {
            assert!(matches!(store.get(bad).await, Err(Error::InvalidHash(_))));
            assert!(matches!(
                store.put(bad, b"x".to_vec()).await,
                Err(Error::InvalidHash(_))
            ));
        }
    }

    #[test]
    fn locations_that_name_no_store_are_refused() {
        assert!(matches!(
            ImageStore::open("gs://x"),
            Err(Error::Location { .. })
        ));
        assert!(matches!(
            ImageStore::open("s3://"),
            Err(Error::Location { .. })
        ));
        let s3 = ImageStore::open_with(
            "s3://user:pw@bucket/pre",
            [
                ("aws_region", "us-east-1"),
                ("aws_access_key_id", "a"),
                ("aws_secret_access_key", "b"),
            ],
        )
        .unwrap();
        assert!(!s3.location().contains("pw"), "{}", s3.location());
        assert_eq!(ImageStore::open("memory:").unwrap().location(), "memory:");
    }
}

#[cfg(feature = "test-s3")]
pub mod test_s3;
