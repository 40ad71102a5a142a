//! Secrets from files, as container orchestrators mount them (`/run/secrets/...`): every secret setting also
//! reads from a file, given as `--<flag>-file <path>` or in `<ENV>_FILE`. The file's content (surrounding
//! whitespace trimmed; several lines of a list setting joined by commas) becomes the setting's environment
//! variable before the arguments are parsed, so it never appears in the process's command line (`ps`), and,
//! like every secret setting's environment value, never in `--help`. Giving a setting both ways is refused.
//!
//! This runs before any thread starts (the binaries call it first thing in `main`, before the async
//! runtime), which is what makes setting the environment sound.

use anyhow::Context as _;
use std::ffi::OsString;
use std::path::PathBuf;

/// A secret setting: its flag (without `--`) and its environment variable.
#[derive(Debug, Clone, Copy)]
pub struct Secret {
    pub flag: &'static str,
    pub env: &'static str,
}

/// The settings that can carry a credential: database URLs (passwords), RPC and gRPC URLs (providers put
/// keys in them), the gRPC token, the 0x key, the route keys, Jupiter's URL, the EVM RPC URLs.
pub const SECRETS: [Secret; 10] = [
    Secret {
        flag: "database-url",
        env: "DATABASE_URL",
    },
    Secret {
        flag: "database-read-url",
        env: "DATABASE_READ_URL",
    },
    Secret {
        flag: "rpc-url",
        env: "RPC_URL",
    },
    Secret {
        flag: "grpc-url",
        env: "GRPC_URL",
    },
    Secret {
        flag: "grpc-x-token",
        env: "GRPC_X_TOKEN",
    },
    Secret {
        flag: "zerox-api-key",
        env: "ZEROX_API_KEY",
    },
    Secret {
        flag: "route-keys",
        env: "ROUTE_KEYS",
    },
    Secret {
        flag: "jupiter-base-url",
        env: "JUPITER_BASE_URL",
    },
    Secret {
        flag: "jupiter-api-key",
        env: "JUPITER_API_KEY",
    },
    Secret {
        flag: "evm-rpc",
        env: "EVM_RPC_URLS",
    },
];

/// `args` (the process's, program name first) without any `--<flag>-file` options, after each secret given
/// as a file (`--<flag>-file` or `<ENV>_FILE`) has been read into its environment variable. Errors name the
/// option and the path, never the content.
pub fn resolve(args: impl IntoIterator<Item = OsString>) -> anyhow::Result<Vec<OsString>> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    for secret in SECRETS {
        let file_flag = format!("--{}-file", secret.flag);
        let mut from_args: Option<PathBuf> = None;
        let mut i = 1;
        while i < args.len() {
            let arg = args[i].to_string_lossy().into_owned();
            if arg == file_flag {
                anyhow::ensure!(i + 1 < args.len(), "{file_flag} needs a path");
                from_args = Some(PathBuf::from(args[i + 1].clone()));
                args.drain(i..i + 2);
            } else if let Some(path) = arg.strip_prefix(&format!("{file_flag}=")) {
                from_args = Some(PathBuf::from(path));
                args.remove(i);
            } else {
                i += 1;
            }
        }
        let env_file = format!("{}_FILE", secret.env);
        let (path, via) = match (from_args, std::env::var_os(&env_file)) {
            (Some(path), _) => (path, file_flag),
            (None, Some(path)) => (PathBuf::from(path), env_file),
            (None, None) => continue,
        };
        let flag = format!("--{}", secret.flag);
        let on_command_line = args.iter().skip(1).any(|a| {
            let a = a.to_string_lossy();
            a == flag || a.starts_with(&format!("{flag}="))
        });
        anyhow::ensure!(!on_command_line, "give either {flag} or {via}, not both");
        anyhow::ensure!(
            std::env::var_os(secret.env).is_none(),
            "give either {} or {via}, not both",
            secret.env
        );
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("{via}: reading {}", path.display()))?;
        let value = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(",");
        anyhow::ensure!(!value.is_empty(), "{via}: {} is empty", path.display());
        // Sound: called before any other thread exists (see the module's note).
        std::env::set_var(secret.env, value);
    }
    Ok(args)
}

/// Flags whose URL may carry a provider's key though the flag is not a secret of its own.
pub const URL_FLAGS: [Secret; 4] = [
    Secret {
        flag: "kyberswap-base-url",
        env: "KYBERSWAP_BASE_URL",
    },
    Secret {
        flag: "zerox-base-url",
        env: "ZEROX_BASE_URL",
    },
    Secret {
        flag: "lifi-base-url",
        env: "LIFI_BASE_URL",
    },
    Secret {
        flag: "relay-base-url",
        env: "RELAY_BASE_URL",
    },
];

/// Registers with [`crate::redact`] what the secret and URL flags hold, from `args` (after [`resolve`]) and
/// the environment, so that no log line or error names them even where an upstream repeats them.
pub fn register_secrets(args: &[OsString]) {
    for secret in SECRETS.iter().chain(URL_FLAGS.iter()) {
        if let Ok(value) = std::env::var(secret.env) {
            crate::redact::register(&value);
        }
        let flag = format!("--{}", secret.flag);
        let inline = format!("{flag}=");
        let mut i = 1;
        while i < args.len() {
            let arg = args[i].to_string_lossy();
            if arg == flag {
                if let Some(value) = args.get(i + 1) {
                    crate::redact::register(&value.to_string_lossy());
                }
                i += 2;
                continue;
            }
            if let Some(value) = arg.strip_prefix(&inline) {
                crate::redact::register(value);
            }
            i += 1;
        }
    }
}

/// A binary's entry point: the secrets given as files are read while this is the only thread, then `run`
/// gets the remaining arguments on a multi-threaded runtime (`api`, `indexer` and `dev` start this way).
pub fn main_with_secrets<F, Fut>(run: F) -> anyhow::Result<()>
where
    F: FnOnce(Vec<OsString>) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    let args = resolve(std::env::args_os())?;
    register_secrets(&args);
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run(args))
}
