// The shell's commands, each with its own permission: once the app declares
// them, Tauri refuses any command a window's capability does not grant.
include!("src/desktop/command_list.rs");

fn main() {
    let manifest = tauri_build::AppManifest::new().commands(COMMANDS);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest))
        .expect("the Tauri build step");
}
