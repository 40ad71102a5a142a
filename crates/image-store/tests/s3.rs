//! The S3 backend against an S3 server in this process (s3s over a directory): what is put is in the
//! bucket as an object named by its hash under the prefix and namespace, read back, deleted.

use image_store::test_s3::S3Server;

const H: &str = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";

#[tokio::test]
async fn images_round_trip_through_an_s3_bucket() {
    let root = tempfile::tempdir().unwrap();
    let server = S3Server::start(root.path(), &["launchpad"]).await.unwrap();
    let store = server
        .open("s3://launchpad/prod")
        .unwrap()
        .namespace("launches");
    assert_eq!(store.get(H).await.unwrap(), None);
    assert!(!store.contains(H).await.unwrap());
    let bytes = vec![7u8; 300_000];
    store.put(H, bytes.clone()).await.unwrap();
    // The object is in the bucket, under the prefix and the namespace: the server wrote it, not us.
    let on_disk = root.path().join("launchpad/prod/launches").join(H);
    assert_eq!(std::fs::read(&on_disk).unwrap(), bytes);
    assert_eq!(store.get(H).await.unwrap().unwrap(), &bytes[..]);
    assert!(store.contains(H).await.unwrap());
    // Another namespace does not see it.
    assert_eq!(
        server
            .open("s3://launchpad/prod")
            .unwrap()
            .namespace("avatars")
            .get(H)
            .await
            .unwrap(),
        None
    );
    store.delete(H).await.unwrap();
    store.delete(H).await.unwrap();
    assert_eq!(store.get(H).await.unwrap(), None);
    assert!(!on_disk.exists());
    // Wrong credentials are an error, not an empty store.
    let wrong = image_store::ImageStore::open_with(
        "s3://launchpad",
        [
            ("aws_endpoint", server.endpoint.clone()),
            ("aws_allow_http", "true".into()),
            ("aws_region", "us-east-1".into()),
            ("aws_access_key_id", "launchpad-test".into()),
            ("aws_secret_access_key", "wrong".into()),
        ],
    )
    .unwrap();
    assert!(wrong.get(H).await.is_err());
}
