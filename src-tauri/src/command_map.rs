//! `ui/src/commands.ts`, the TypeScript map of every Tauri command (its arguments, its
//! result, its doc comment), generated from the commands' own signatures in `commands.rs`:
//! a command added, renamed or changed there fails the test below until the file is
//! regenerated with `UPDATE_BINDINGS=1 cargo test -p docs-mcp-app --bin docs-mcp-app bindings`.
//! The arguments' and results' own types are `bindings.ts`'s (generated from the Rust types).

use std::collections::BTreeSet;

/// Parameters Tauri fills in itself: not the UI's to send.
const INJECTED: [&str; 4] = ["HostState", "AppHandle", "State", "Window"];

/// One command as `commands.rs` declares it.
#[derive(Debug, PartialEq)]
struct Command {
    name: String,
    docs: Vec<String>,
    args: Vec<(String, String)>,
    result: String,
}

/// The commands of `source`, in order: each function after a `#[tauri::command…]`.
fn commands(source: &str) -> Vec<Command> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found = vec![];
    for (i, line) in lines.iter().enumerate() {
        if !line.trim_start().starts_with("#[tauri::command") {
            continue;
        }
        let docs: Vec<String> = lines[..i]
            .iter()
            .rev()
            .take_while(|l| l.trim_start().starts_with("///"))
            .map(|l| l.trim_start().trim_start_matches("///").trim().to_owned())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let signature: String = lines[i + 1..]
            .iter()
            .take_while(|l| !l.trim_end().ends_with('{'))
            .chain(lines[i + 1..].iter().find(|l| l.trim_end().ends_with('{')))
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ");
        found.push(parse_signature(&signature, docs));
    }
    found
}

fn parse_signature(signature: &str, docs: Vec<String>) -> Command {
    let after_fn = signature.split("fn ").nth(1).expect("a function");
    let open = after_fn.find('(').expect("parameters");
    let name = after_fn[..open].trim().to_owned();
    let close = matching_paren(after_fn, open);
    let params = &after_fn[open + 1..close];
    let rest = after_fn[close + 1..].trim_end_matches('{').trim();
    let result = rest
        .strip_prefix("->")
        .map(|r| r.trim().to_owned())
        .unwrap_or_else(|| "()".to_owned());
    let args = split_top_level(params)
        .into_iter()
        .filter_map(|param| {
            let (arg, ty) = param.split_once(':')?;
            let ty = ty.trim().to_owned();
            let base = ty.split('<').next().unwrap_or_default().trim();
            (!INJECTED.contains(&base)).then(|| (arg.trim().to_owned(), ty))
        })
        .collect();
    Command {
        name,
        docs,
        args,
        result,
    }
}

fn matching_paren(text: &str, open: usize) -> usize {
    let mut depth = 0;
    for (i, c) in text.char_indices().skip(open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced parameters in {text}");
}

/// `a: X<B, C>, d: E` → `["a: X<B, C>", "d: E"]`.
fn split_top_level(text: &str) -> Vec<String> {
    let (mut parts, mut current, mut depth) = (vec![], String::new(), 0);
    for c in text.chars() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
        .into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

/// A Rust type as the UI receives or sends it over IPC (serde's JSON); named types are
/// `bindings.ts`'s, collected in `named`.
fn typescript(rust: &str, named: &mut BTreeSet<String>) -> String {
    let rust = rust.trim();
    let inner = |prefix: &str| {
        rust.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix('>'))
            .map(str::trim)
    };
    if let Some(t) = inner("CommandResult<") {
        return typescript(t, named);
    }
    if let Some(t) = inner("Option<") {
        return format!("{} | null", typescript(t, named));
    }
    if let Some(t) = inner("Vec<") {
        return format!("{}[]", typescript(t, named));
    }
    // A map is a JSON object: its keys are strings there, written as numbers for number keys.
    if let Some(t) = inner("BTreeMap<").or_else(|| inner("HashMap<")) {
        let [key, value] = split_top_level(t)
            .try_into()
            .expect("a map's key and value");
        return format!(
            "Record<{}, {}>",
            typescript(&key, named),
            typescript(&value, named)
        );
    }
    match rust {
        "()" => "null".into(),
        "String" | "Uuid" | "&str" => "string".into(),
        "bool" => "boolean".into(),
        "u8" | "u16" | "u32" | "u64" | "usize" | "i32" | "i64" => "number".into(),
        other => {
            assert!(
                other.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "a command's type the generator does not know: {other}"
            );
            named.insert(other.to_owned());
            other.to_owned()
        }
    }
}

/// The whole of `ui/src/commands.ts`.
fn generate(commands: &[Command]) -> String {
    let mut named = BTreeSet::new();
    let mut body = String::new();
    for command in commands {
        if !command.docs.is_empty() {
            body.push_str("  /**");
            for (i, line) in command.docs.iter().enumerate() {
                body.push_str(if i == 0 { " " } else { "\n   * " });
                body.push_str(line);
            }
            body.push_str(" */\n");
        }
        let args = if command.args.is_empty() {
            "Record<string, never>".to_owned()
        } else {
            let fields: Vec<String> = command
                .args
                .iter()
                .map(|(name, ty)| format!("{name}: {}", typescript(ty, &mut named)))
                .collect();
            format!("{{ {} }}", fields.join("; "))
        };
        let result = typescript(&command.result, &mut named);
        body.push_str(&format!(
            "  {}: {{ args: {args}; result: {result} }};\n",
            command.name
        ));
    }
    let imports = named.into_iter().collect::<Vec<_>>().join(", ");
    format!(
        "// Generated from the commands' signatures in src-tauri/src/commands.rs by\n\
         // `command_map::tests::ui_command_bindings_are_generated_from_the_commands`: do not edit.\n\
         // Regenerate with `UPDATE_BINDINGS=1 cargo test -p docs-mcp-app --bin docs-mcp-app bindings`.\n\n\
         import type {{ {imports} }} from \"./bindings\";\n\n\
         /** Every command: its arguments and its result. */\n\
         export interface Commands {{\n{body}}}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ui_command_bindings_are_generated_from_the_commands() {
        let generated = generate(&commands(include_str!("commands.rs")));
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../ui/src/commands.ts");
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(path, &generated).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == generated,
            "ui/src/commands.ts is not generated from commands.rs: run `UPDATE_BINDINGS=1 cargo test -p docs-mcp-app --bin docs-mcp-app bindings`"
        );
    }

    #[test]
    fn a_signature_gives_its_name_arguments_result_and_docs() {
        let source = "/// Decides.\n/// Twice.\n#[tauri::command(rename_all = \"snake_case\")]\n\
                      pub async fn decide(\n    host: HostState<'_>,\n    ids: Vec<Uuid>,\n    \
                      comment: Option<String>,\n) -> CommandResult<Vec<EditRecord>> {\n}\n\
                      #[tauri::command]\npub fn stop(app: AppHandle) {\n}\n";
        let found = commands(source);
        assert_eq!(
            found,
            [
                Command {
                    name: "decide".into(),
                    docs: vec!["Decides.".into(), "Twice.".into()],
                    args: vec![
                        ("ids".into(), "Vec<Uuid>".into()),
                        ("comment".into(), "Option<String>".into())
                    ],
                    result: "CommandResult<Vec<EditRecord>>".into(),
                },
                Command {
                    name: "stop".into(),
                    docs: vec![],
                    args: vec![],
                    result: "()".into(),
                },
            ]
        );
        assert_eq!(
            generate(&found)
                .split("export interface Commands {\n")
                .nth(1)
                .unwrap(),
            "  /** Decides.\n   * Twice. */\n  decide: { args: { ids: string[]; comment: string | null }; result: EditRecord[] };\n  stop: { args: Record<string, never>; result: null };\n}\n"
        );
    }
}
