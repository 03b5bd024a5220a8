fn main() {
    napi_build::setup();
    // `heapql --version` names the target and profile the addon was compiled for.
    for (name, var) in [("HEAPQL_BUILD_TARGET", "TARGET"), ("HEAPQL_BUILD_PROFILE", "PROFILE")] {
        println!("cargo:rustc-env={name}={}", std::env::var(var).unwrap_or_default());
    }
}
