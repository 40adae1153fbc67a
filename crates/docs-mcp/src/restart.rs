//! Settings that libraries read from the environment once, when the process starts, and that
//! a running program may not change for itself safely (setting its own environment is
//! `unsafe`, other threads may read it): the program starts itself again, once, with them set
//! — the same process (`exec`: its pid, its stdin and stdout, its arguments), a new image.
//! A variable already set, even empty, is the person's and is left as it is.

/// A variable and the value it is given when it is not set.
#[derive(Debug, Clone, Copy)]
pub struct EnvDefault {
    pub name: &'static str,
    pub value: &'static str,
}

/// Starts this program again with each variable of `defaults` that is not set given its
/// value; returns only when it does not: every variable was set already (`None`), or the new
/// start failed (why, and the program goes on as it is).
#[cfg(unix)]
pub fn start_again_with(defaults: &[EnvDefault]) -> Option<std::io::Error> {
    use std::os::unix::process::CommandExt as _;

    let unset: Vec<&EnvDefault> = defaults
        .iter()
        .filter(|default| std::env::var_os(default.name).is_none())
        .collect();
    if unset.is_empty() {
        return None;
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return Some(e),
    };
    let mut args = std::env::args_os();
    let mut command = std::process::Command::new(exe);
    if let Some(arg0) = args.next() {
        command.arg0(arg0);
    }
    command.args(args);
    for default in unset {
        command.env(default.name, default.value);
    }
    Some(command.exec())
}
