//! A certificate authority of the test's own and a certificate it signed for `127.0.0.1`, made
//! with the `openssl` command: the test server then serves HTTPS and WSS as a real instance
//! does, trusted only by a process told of this authority (`SSL_CERT_FILE`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// PEM files in a directory of their own.
#[derive(Debug, Clone)]
pub struct TestTls {
    dir: PathBuf,
}

impl TestTls {
    /// A fresh authority and server certificate under `dir` (created).
    pub fn generate(dir: &Path) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let tls = TestTls {
            dir: dir.to_owned(),
        };
        let ec = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        openssl(
            dir,
            &[
                &["req", "-x509"],
                &ec[..],
                &[
                    "-days",
                    "2",
                    "-subj",
                    "/CN=docs-mcp test authority",
                    "-addext",
                    "basicConstraints=critical,CA:TRUE",
                    "-addext",
                    "keyUsage=critical,keyCertSign,cRLSign",
                    "-keyout",
                    "ca-key.pem",
                    "-out",
                    "ca.pem",
                ],
            ],
        )?;
        openssl(
            dir,
            &[
                &["req"],
                &ec[..],
                &[
                    "-subj",
                    "/CN=127.0.0.1",
                    "-keyout",
                    "key.pem",
                    "-out",
                    "server.csr",
                ],
            ],
        )?;
        std::fs::write(
            dir.join("server.ext"),
            "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n",
        )?;
        openssl(
            dir,
            &[&[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca-key.pem",
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                "server.ext",
                "-out",
                "cert.pem",
            ]],
        )?;
        Ok(tls)
    }

    /// The authority, to trust (`SSL_CERT_FILE`).
    pub fn ca_file(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }

    pub(crate) fn cert_file(&self) -> PathBuf {
        self.dir.join("cert.pem")
    }

    pub(crate) fn key_file(&self) -> PathBuf {
        self.dir.join("key.pem")
    }
}

fn openssl(dir: &Path, args: &[&[&str]]) -> anyhow::Result<()> {
    let args: Vec<&str> = args.concat();
    let out = Command::new("openssl")
        .args(&args)
        .current_dir(dir)
        .output()
        .context("could not run `openssl` (is it installed?)")?;
    if !out.status.success() {
        bail!(
            "openssl {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}
