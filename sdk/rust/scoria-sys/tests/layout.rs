//! The layout test: the C compiler's view of every struct, field, enum and
//! constant of scoria.h (printed by tests/layout/generated.c) against the
//! Rust bindings' (tests/layout/generated.rs). Both tables are generated
//! from the header by sdk/rust/generate.py; this file compiles and runs the
//! C side, builds the Rust side, and names every line that differs.
//!
//! The C compiler is $CC (default `cc`); the header is found in
//! $SCORIA_INCLUDE_DIR (default: the SDK's include directory next to this
//! crate in the source tree).

use scoria_sys::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

macro_rules! struct_line {
    ($out:ident, $T:ident) => {
        $out.push(format!(
            "struct {} size {} align {}",
            stringify!($T),
            std::mem::size_of::<$T>(),
            std::mem::align_of::<$T>()
        ))
    };
}

macro_rules! field_line {
    ($out:ident, $T:ident, $f:ident) => {
        $out.push(format!(
            "field {}.{} offset {} size {}",
            stringify!($T),
            stringify!($f).trim_start_matches("r#"),
            scoria_sys::offset_of!($T, $f),
            scoria_sys::field_size!($T, $f)
        ))
    };
}

macro_rules! enum_line {
    ($out:ident, $T:ident) => {
        $out.push(format!(
            "enum {} size {} minus_one {}",
            stringify!($T),
            std::mem::size_of::<$T>(),
            (0 as $T).wrapping_sub(1) as i64
        ))
    };
}

macro_rules! type_line {
    ($out:ident, $T:ident) => {
        $out.push(format!("type {} size {}", stringify!($T), std::mem::size_of::<$T>()))
    };
}

macro_rules! int_line {
    ($out:ident, $c:ident) => {
        $out.push(format!("const {} {}", stringify!($c), $c as i64))
    };
}

macro_rules! f64_line {
    ($out:ident, $c:ident) => {
        $out.push(format!("const {} f64:{:016x}", stringify!($c), ($c as f64).to_bits()))
    };
}

macro_rules! str_line {
    ($out:ident, $c:ident) => {{
        let bytes: &[u8] = $c;
        assert_eq!(bytes.last(), Some(&0), "{} must end with NUL", stringify!($c));
        let text = std::str::from_utf8(&bytes[..bytes.len() - 1]).unwrap();
        $out.push(format!("const {} \"{}\"", stringify!($c), text))
    }};
}

include!("layout/generated.rs");

fn c_layout() -> Vec<String> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let include = std::env::var_os("SCORIA_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../include"));
    assert!(
        include.join("scoria/scoria.h").is_file(),
        "no scoria/scoria.h under {} (set SCORIA_INCLUDE_DIR)",
        include.display()
    );
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("scoria_layout_c");
    let status = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&exe)
        .arg("-I")
        .arg(&include)
        .arg(manifest.join("tests/layout/generated.c"))
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {:?} (set CC): {}", cc, e));
    assert!(status.success(), "{} could not compile tests/layout/generated.c", cc);
    let out = Command::new(&exe).output().expect("run the C layout program");
    assert!(out.status.success(), "the C layout program failed");
    String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect()
}

/// "field scoria_str.len offset 8 size 8" -> ("field scoria_str.len", "offset 8 size 8")
fn table(lines: &[String]) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for line in lines {
        let mut parts = line.splitn(3, ' ');
        let key = format!("{} {}", parts.next().unwrap(), parts.next().unwrap_or(""));
        let value = parts.next().unwrap_or("").to_string();
        assert!(map.insert(key.clone(), value).is_none(), "{} listed twice", key);
    }
    map
}

#[test]
fn rust_layout_matches_the_c_compiler() {
    let c = c_layout();
    let mut rust = Vec::new();
    rust_layout(&mut rust);
    let (c, rust) = (table(&c), table(&rust));
    let mut problems = Vec::new();
    for (key, c_value) in &c {
        match rust.get(key) {
            None => {
                problems.push(format!("{}: C has it ({}), the Rust bindings do not", key, c_value))
            }
            Some(r) if r != c_value => {
                problems.push(format!("{}: C says {}, Rust says {}", key, c_value, r))
            }
            Some(_) => {}
        }
    }
    for (key, r) in &rust {
        if !c.contains_key(key) {
            problems.push(format!("{}: the Rust bindings have it ({}), C does not", key, r));
        }
    }
    assert!(
        problems.is_empty(),
        "the Rust bindings disagree with the C compiler on {} of {} items:\n  {}\n\
         (regenerate with `python3 sdk/rust/generate.py`; if that does not fix it, the \
         generator translates a type wrongly)",
        problems.len(),
        c.len(),
        problems.join("\n  ")
    );
    let structs = c.keys().filter(|k| k.starts_with("struct ")).count();
    let fields = c.keys().filter(|k| k.starts_with("field ")).count();
    println!("{} structs, {} fields, {} items in all agree with C", structs, fields, c.len());
}
