//! Secrets kept in the data folder when none is configured: the JWT
//! secret here, the VAPID key (`notify::push`); each written readable by
//! this user alone.

use std::path::Path;

/// The JWT secret: configured, or generated once and kept in the data folder.
pub fn jwt_secret(config: &crate::config::Config) -> Result<Vec<u8>, String> {
    if let Some(secret) = &config.jwt_secret {
        if secret.len() < 32 {
            return Err("POSTHORN_JWT_SECRET must be at least 32 characters".into());
        }
        return Ok(secret.as_bytes().to_vec());
    }
    let path = config.data_dir.join("jwt-secret");
    if let Ok(existing) = std::fs::read(&path) {
        if existing.len() >= 32 {
            return Ok(existing);
        }
    }
    let secret: String = crate::auth::random_bytes::<32>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    write_private(&path, secret.as_bytes())?;
    Ok(secret.into_bytes())
}

/// Write `contents` to `path` readable by this user alone (0600), making
/// its folder if need be.
pub fn write_private(path: &Path, contents: &[u8]) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    std::io::Write::write_all(&mut file, contents).map_err(|e| e.to_string())
}
