//! Generates the spec parser from `grammar/*.lalrpop` with lalrpop.

fn main() {
    println!("cargo:rerun-if-changed=grammar");
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .process()
        .expect("lalrpop failed to generate the grammar");
}
