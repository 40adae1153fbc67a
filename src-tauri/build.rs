//! Checks that the UI was built (Tauri embeds `ui/dist`), then runs tauri-build.

fn main() {
    let dist = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/dist/index.html");
    println!("cargo:rerun-if-changed=../ui/dist");
    if !dist.exists() {
        panic!(
            "\n\nThe UI is not built: {} is missing.\n\
             Build it first with `npm ci --prefix ui && npm run build --prefix ui`\n\
             (scripts/setup.sh, scripts/run.sh and scripts/test.sh do this for you).\n",
            dist.display()
        );
    }
    tauri_build::build()
}
