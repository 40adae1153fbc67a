//! Who is at the other end of a loopback connection to the control API: which process, and
//! whether it runs in a terminal (its standard input and output are one terminal device).
//!
//! A decision asked of a headless service must come from a person at a terminal. An agent's
//! shell tool runs commands with pipes, not a terminal: the service looks the caller up
//! itself (on Linux, `/proc/net/tcp*` gives the socket's inode and owner, `/proc/<pid>/fd`
//! the process holding it) instead of trusting anything the request says. Where the lookup
//! is not possible (other systems), nothing is known and callers say so.
//!
//! Another user's process is known as such. `IDENTIFIES` says whether this system allows the lookup
//! (Linux only).

use std::net::SocketAddr;
use std::path::PathBuf;

use serde::Serialize;

/// Whether this system lets the service find out who connected (Linux). Elsewhere a
/// headless service cannot check the asker's terminal, and says so.
pub const IDENTIFIES: bool = cfg!(target_os = "linux");

/// The process that made a request, as far as the system tells.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Asker {
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub pid: Option<u32>,
    /// Its program's name (`docs-mcp`, `curl`, `python3`...).
    pub program: Option<String>,
    /// The terminal its standard input and output both are, e.g. `/dev/pts/3`; `None` when
    /// it has none (pipes, files) or when this could not be found out.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub terminal: Option<PathBuf>,
    /// Whether the system let the service look the caller up at all.
    pub known: bool,
}

impl Asker {
    /// "`docs-mcp` (process 412) in a terminal", for the person and the log.
    pub fn describe(&self) -> String {
        if !self.known {
            return "a program this system does not let Docs MCP identify".to_owned();
        }
        let Some(pid) = self.pid else {
            return "a program of another user of this computer".to_owned();
        };
        let program = self.program.as_deref().unwrap_or("a program");
        let pid = format!(" (process {pid})");
        match &self.terminal {
            Some(_) => format!("`{program}`{pid}, in a terminal"),
            None => format!("`{program}`{pid}, without a terminal"),
        }
    }
}

/// The process of this user connected from `peer` to this service's `local` address.
/// Another user's process is reported as unknown-and-refused by the callers: its `known`
/// is `true` with no pid.
pub fn identify(peer: SocketAddr, local: SocketAddr) -> Asker {
    imp::identify(peer, local)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::net::SocketAddr;
    use std::os::unix::fs::MetadataExt;
    use std::path::{Path, PathBuf};

    use super::Asker;

    pub(super) fn identify(peer: SocketAddr, local: SocketAddr) -> Asker {
        let Some(me) = std::fs::metadata("/proc/self").ok().map(|m| m.uid()) else {
            return Asker::default();
        };
        let found = ["/proc/net/tcp", "/proc/net/tcp6"]
            .iter()
            .filter_map(|table| std::fs::read_to_string(table).ok())
            .find_map(|table| socket_of(&table, peer.port(), local.port()));
        let Some((uid, inode)) = found else {
            // Connected a moment ago, gone already, or hidden: nothing is known.
            return Asker::default();
        };
        if uid != me {
            // Another user's process: known not to be the person's own.
            return Asker {
                known: true,
                ..Asker::default()
            };
        }
        let Some(pid) = process_holding(inode) else {
            return Asker::default();
        };
        let proc_dir = PathBuf::from(format!("/proc/{pid}"));
        let program = std::fs::read_to_string(proc_dir.join("comm"))
            .ok()
            .map(|c| c.trim().to_owned());
        Asker {
            pid: Some(pid),
            program,
            terminal: terminal_of(&proc_dir),
            known: true,
        }
    }

    /// The owner and inode of the established socket from port `from` to port `to`, in a
    /// `/proc/net/tcp` table (`sl local rem st ... uid timeout inode`, addresses as hex
    /// `ADDR:PORT`).
    pub(super) fn socket_of(table: &str, from: u16, to: u16) -> Option<(u32, u64)> {
        let port = |address: &str| {
            address
                .rsplit_once(':')
                .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
        };
        table.lines().skip(1).find_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (local, remote, state) = (fields.get(1)?, fields.get(2)?, fields.get(3)?);
            // 01: established.
            if *state != "01" || port(local)? != from || port(remote)? != to {
                return None;
            }
            Some((fields.get(7)?.parse().ok()?, fields.get(9)?.parse().ok()?))
        })
    }

    /// The process with a descriptor on socket `inode` (only this user's are readable).
    fn process_holding(inode: u64) -> Option<u32> {
        let wanted = format!("socket:[{inode}]");
        std::fs::read_dir("/proc")
            .ok()?
            .flatten()
            .find_map(|entry| {
                let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
                let fds = std::fs::read_dir(entry.path().join("fd")).ok()?;
                fds.flatten()
                    .any(|fd| {
                        std::fs::read_link(fd.path())
                            .is_ok_and(|t| t.as_os_str() == wanted.as_str())
                    })
                    .then_some(pid)
            })
    }

    /// The terminal a process's standard input and output both are.
    fn terminal_of(proc_dir: &Path) -> Option<PathBuf> {
        let input = std::fs::read_link(proc_dir.join("fd/0")).ok()?;
        let output = std::fs::read_link(proc_dir.join("fd/1")).ok()?;
        (input == output && is_terminal_device(&input)).then_some(input)
    }

    fn is_terminal_device(path: &Path) -> bool {
        let path = path.to_string_lossy();
        path.starts_with("/dev/pts/") || (path.starts_with("/dev/tty") && path != "/dev/tty")
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        const TABLE: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1DEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 555 1 0000000000000000 100 0 0 10 0
   1: 0100007F:C350 0100007F:1DEA 01 00000000:00000000 00:00000000 00000000  1000        0 777 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:1DEA 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 778 1 0000000000000000 20 4 30 10 -1
";

        #[test]
        fn the_callers_socket_is_found_by_its_ports() {
            // 0xC350 = 50000 → 0x1DEA = 7658: the caller's end, not the listener nor ours.
            assert_eq!(socket_of(TABLE, 50000, 7658), Some((1000, 777)));
            assert_eq!(socket_of(TABLE, 7658, 50000), Some((1000, 778)));
            assert_eq!(socket_of(TABLE, 50001, 7658), None);
        }

        #[test]
        fn this_test_is_identified_with_its_terminal_or_none() {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
            let (_server, peer) = listener.accept().unwrap();
            let asker = identify(peer, listener.local_addr().unwrap());
            assert_eq!(asker.pid, Some(std::process::id()));
            assert!(asker.known);
            let own = terminal_of(Path::new("/proc/self"));
            assert_eq!(asker.terminal, own);
            drop(client);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::net::SocketAddr;

    use super::Asker;

    pub(super) fn identify(_peer: SocketAddr, _local: SocketAddr) -> Asker {
        Asker::default()
    }
}
