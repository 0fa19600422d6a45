//! Compiles kernel/core/airtcp_cc.c (the code the BPF programs include) for the host.
fn main() {
    let core = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernel/core");
    println!("cargo:rerun-if-changed={}", core.join("airtcp_cc.c").display());
    println!("cargo:rerun-if-changed={}", core.join("airtcp_cc.h").display());
    cc::Build::new()
        .file(core.join("airtcp_cc.c"))
        .include(&core)
        .std("c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("airtcp_cc");
}
