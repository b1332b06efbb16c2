//! The safe layer against a fake host: the entry point define_plugin!
//! makes, the descriptor and declared arguments it returns, the argument
//! getters, logging with its log_enabled check, and a host table older
//! than the bindings.

use scoria::sys::{self, scoria_args, scoria_code, scoria_plugin_ctx, scoria_str};
use scoria::{c_str, ArgSpec, ArgType, Args, Descriptor, Level};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

// --- the plugin under test ----------------------------------------------------

static ARGS: [ArgSpec; 3] = [
    ArgSpec::new(ArgType::Int, c_str!("weight"), Some(c_str!("7")), c_str!("score weight"))
        .min(0.0)
        .max(100.0),
    ArgSpec::new(ArgType::String, c_str!("mode"), Some(c_str!("fast")), c_str!("how hard"))
        .allowed(scoria::allowed!("fast", "thorough")),
    ArgSpec::new(ArgType::List, c_str!("nodes"), None, c_str!("nodes to avoid")),
];

unsafe extern "C" fn create(
    _: *const scoria_plugin_ctx,
    _: *const scoria_args,
    _: *mut *mut c_void,
    _: *mut c_char,
    _: usize,
) -> scoria_code {
    sys::SCORIA_OK
}

static DESCRIPTOR: Descriptor =
    Descriptor::plugin(c_str!("layer-test"), c_str!("0.1.0"), c_str!("tests the layer"))
        .on_create(create)
        .declare_args(&ARGS);

scoria::define_plugin!(DESCRIPTOR);

// --- a fake host ----------------------------------------------------------------

/// The arguments a fake `scoria_args` points to.
struct FakeArgs(Vec<(&'static str, &'static [u8])>);

unsafe fn lookup(args: *const scoria_args, key: scoria_str) -> Option<&'static [u8]> {
    let fake = &*(args as *const FakeArgs);
    let key = scoria::view(&key);
    fake.0.iter().find(|(k, _)| k.as_bytes() == key).map(|(_, v)| *v)
}

unsafe extern "C" fn get_string(
    args: *const scoria_args,
    key: scoria_str,
    out: *mut scoria_str,
) -> scoria_code {
    match lookup(args, key) {
        Some(v) => {
            *out = scoria_str { data: v.as_ptr() as *const c_char, len: v.len() };
            sys::SCORIA_OK
        }
        None => sys::SCORIA_NOT_FOUND,
    }
}

unsafe fn parse<T: std::str::FromStr>(
    args: *const scoria_args,
    key: scoria_str,
    out: *mut T,
) -> scoria_code {
    match lookup(args, key) {
        None => sys::SCORIA_NOT_FOUND,
        Some(v) => match std::str::from_utf8(v).ok().and_then(|s| s.parse().ok()) {
            Some(x) => {
                *out = x;
                sys::SCORIA_OK
            }
            None => sys::SCORIA_INVALID_ARGUMENT,
        },
    }
}

unsafe extern "C" fn get_int(
    args: *const scoria_args,
    key: scoria_str,
    out: *mut i64,
) -> scoria_code {
    parse(args, key, out)
}

unsafe extern "C" fn get_float(
    args: *const scoria_args,
    key: scoria_str,
    out: *mut f64,
) -> scoria_code {
    parse(args, key, out)
}

unsafe extern "C" fn get_bool(
    args: *const scoria_args,
    key: scoria_str,
    out: *mut c_int,
) -> scoria_code {
    let mut b = false;
    let code = parse(args, key, &mut b);
    *out = b as c_int;
    code
}

unsafe extern "C" fn count(args: *const scoria_args) -> usize {
    let fake = &*(args as *const FakeArgs);
    fake.0.len()
}

unsafe extern "C" fn key_at(args: *const scoria_args, i: usize) -> scoria_str {
    let fake = &*(args as *const FakeArgs);
    scoria::str(fake.0[i].0)
}

/// Levels up to this one are written.
static VERBOSITY: AtomicI32 = AtomicI32::new(0);
static LOGGED: Mutex<Vec<(c_int, String)>> = Mutex::new(Vec::new());
static ENABLED_ASKED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn log(_: *const scoria_plugin_ctx, level: c_int, message: scoria_str) {
    let text = String::from_utf8(scoria::view(&message).to_vec()).unwrap();
    LOGGED.lock().unwrap().push((level, text));
}

unsafe extern "C" fn log_enabled(_: *const scoria_plugin_ctx, level: c_int) -> c_int {
    ENABLED_ASKED.fetch_add(1, Ordering::SeqCst);
    (level <= VERBOSITY.load(Ordering::SeqCst)) as c_int
}

unsafe extern "C" fn report_error(_: *const scoria_plugin_ctx, message: scoria_str) {
    let text = String::from_utf8(scoria::view(&message).to_vec()).unwrap();
    LOGGED.lock().unwrap().push((99, text));
}

/// A whole 1.2 host table, made once and kept for the test binary's life.
fn host() -> *const sys::scoria_host_api {
    static ONCE: Once = Once::new();
    static mut TABLE: *const sys::scoria_host_api = ptr::null();
    ONCE.call_once(|| {
        let mut api = sys::scoria_host_api::sized();
        api.abi_major = 1;
        api.abi_minor = 2;
        api.log = Some(log);
        api.log_enabled = Some(log_enabled);
        api.report_error = Some(report_error);
        api.args_get_int = Some(get_int);
        api.args_get_float = Some(get_float);
        api.args_get_bool = Some(get_bool);
        api.args_get_string = Some(get_string);
        api.args_count = Some(count);
        api.args_key_at = Some(key_at);
        // SAFETY: written once, before any read, under call_once.
        unsafe { TABLE = Box::into_raw(Box::new(api)) }
    });
    // SAFETY: written by the call_once above, which has completed.
    unsafe { TABLE }
}

/// The same functions in a table as old as ABI 1.0 up to `log`: what a host
/// that predates the later fields would hand over (its allocation ends
/// there, so the layer must not read further).
fn short_host() -> *const sys::scoria_host_api {
    let end =
        sys::offset_of!(sys::scoria_host_api, log) + sys::field_size!(sys::scoria_host_api, log);
    let words = (end + 7) / 8;
    let mut block = vec![0u64; words].into_boxed_slice();
    // SAFETY: `block` holds `end` bytes, 8-aligned, and the copied prefix of
    // the full table is its first `end` bytes.
    unsafe {
        ptr::copy_nonoverlapping(host() as *const u8, block.as_mut_ptr() as *mut u8, end);
        *(block.as_mut_ptr() as *mut u32) = end as u32;
    }
    Box::leak(block).as_ptr() as *const sys::scoria_host_api
}

/// Tests share the host table the entry point keeps: one at a time, each
/// starting from the full fake host.
fn with_host() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let ctx = 0x10 as *const scoria_plugin_ctx;
    // SAFETY: the fake table lives for the test binary's life.
    let d = unsafe { scoria_plugin_entry(1, 2, host(), ctx) };
    assert!(!d.is_null());
    VERBOSITY.store(0, Ordering::SeqCst);
    LOGGED.lock().unwrap().clear();
    guard
}

fn fake_args(pairs: &[(&'static str, &'static [u8])]) -> *const scoria_args {
    Box::leak(Box::new(FakeArgs(pairs.to_vec()))) as *const FakeArgs as *const scoria_args
}

unsafe fn c(p: *const c_char) -> &'static str {
    CStr::from_ptr(p).to_str().unwrap()
}

// --- tests -------------------------------------------------------------------------

#[test]
fn entry_refuses_another_major_and_a_missing_table() {
    let _g = with_host();
    let ctx = ptr::null();
    // SAFETY: the fake table lives for the test binary's life.
    unsafe {
        assert!(scoria_plugin_entry(2, 0, host(), ctx).is_null());
        assert!(scoria_plugin_entry(0, 9, host(), ctx).is_null());
        assert!(scoria_plugin_entry(1, 2, ptr::null(), ctx).is_null());
        // A host of a newer minor gets the descriptor (it decides by abi_minor).
        assert_eq!(scoria_plugin_entry(1, 7, host(), ctx), DESCRIPTOR.as_raw() as *const _);
    }
    assert_eq!(scoria::host_table(), host());
}

#[test]
fn descriptor_says_what_the_header_asks() {
    let d = DESCRIPTOR.as_raw();
    assert_eq!(d.struct_size as usize, std::mem::size_of::<sys::scoria_descriptor>());
    assert_eq!(
        (d.abi_major as u32, d.abi_minor as u32),
        (sys::SCORIA_ABI_VERSION_MAJOR, sys::SCORIA_ABI_VERSION_MINOR)
    );
    assert_eq!(d.kind, sys::SCORIA_KIND_PLUGIN);
    assert_eq!(d.flags, sys::SCORIA_FLAG_DECLARES_ARGS);
    assert!(d.on_create.is_some() && d.on_destroy.is_none() && d.on_execute.is_none());
    // SAFETY: the descriptor's strings are NUL-terminated literals.
    unsafe {
        assert_eq!(c(d.name), "layer-test");
        assert_eq!(c(d.version), "0.1.0");
        assert_eq!(c(d.description), "tests the layer");
    }
    assert_eq!(d.arg_count, 3);
    assert_eq!(d.args, ARGS.as_ptr() as *const sys::scoria_arg_spec);
    let serial = Descriptor::action(c_str!("a"), c_str!("1"), c_str!("d")).serial_hooks();
    assert_eq!(serial.as_raw().kind, sys::SCORIA_KIND_ACTION);
    assert_eq!(serial.as_raw().flags, sys::SCORIA_FLAG_SERIAL_HOOKS);
    assert!(serial.as_raw().args.is_null());
}

#[test]
fn declared_arguments_are_the_header_specs() {
    // SAFETY: ARGS is a static array of arg_count specs.
    let specs = unsafe {
        std::slice::from_raw_parts(DESCRIPTOR.as_raw().args, DESCRIPTOR.as_raw().arg_count)
    };
    for s in specs {
        assert_eq!(s.struct_size as usize, std::mem::size_of::<sys::scoria_arg_spec>());
        assert_eq!(s.reserved0, 0);
    }
    let (weight, mode, nodes) = (&specs[0], &specs[1], &specs[2]);
    // SAFETY: NUL-terminated literals, and a NULL-terminated allowed array.
    unsafe {
        assert_eq!(
            (c(weight.name), c(weight.default_value), c(weight.help)),
            ("weight", "7", "score weight")
        );
        assert_eq!(weight.r#type, sys::SCORIA_ARG_INT);
        assert_eq!(weight.bounds, sys::SCORIA_ARG_HAS_MIN | sys::SCORIA_ARG_HAS_MAX);
        assert_eq!((weight.min, weight.max), (0.0, 100.0));
        assert!(weight.allowed.is_null());

        assert_eq!(mode.r#type, sys::SCORIA_ARG_STRING);
        assert_eq!(mode.bounds, 0);
        let mut values = Vec::new();
        let mut p = mode.allowed;
        while !(*p).is_null() {
            values.push(c(*p));
            p = p.add(1);
        }
        assert_eq!(values, ["fast", "thorough"]);

        assert_eq!(nodes.r#type, sys::SCORIA_ARG_LIST);
        assert!(nodes.default_value.is_null());
    }
}

#[test]
fn getters_read_each_type_and_name_the_argument_that_is_wrong() {
    let _g = with_host();
    let raw = fake_args(&[
        ("weight", b"7"),
        ("bad", b"seven"),
        ("factor", b"1.5"),
        ("on", b"true"),
        ("name", b"ssd"),
        ("latin1", b"caf\xe9"),
        ("text", b"node-a, node-b,, node-c "),
        ("items.0", b"x"),
        ("items.1", b"y"),
    ]);
    // SAFETY: the fake arguments are leaked: they outlive `args`.
    let args = unsafe { Args::from_raw(raw) }.unwrap();
    assert_eq!(args.get_int("weight"), Ok(Some(7)));
    assert_eq!(args.get_int("absent"), Ok(None));
    let err = args.get_int("bad").unwrap_err();
    assert_eq!(err.to_string(), "argument \"bad\" is not a whole number");
    assert_eq!(args.get_float("factor"), Ok(Some(1.5)));
    assert_eq!(args.get_float("weight"), Ok(Some(7.0)));
    assert!(args.get_float("name").is_err());
    assert_eq!(args.get_bool("on"), Ok(Some(true)));
    assert_eq!(args.get_bool("name").unwrap_err().problem, "is not true or false");
    assert_eq!(args.get_string("name"), Ok(Some("ssd")));
    assert_eq!(args.get_string("latin1").unwrap_err().problem, "is not UTF-8");
    assert_eq!(args.get_list("text"), Ok(Some(vec!["node-a", "node-b", "node-c"])));
    assert_eq!(args.get_list("items"), Ok(Some(vec!["x", "y"])));
    assert_eq!(args.get_list("absent"), Ok(None));
    assert_eq!(args.keys().len(), 9);
    assert_eq!(args.keys()[7], "items.0");
    // SAFETY: null is allowed.
    assert!(unsafe { Args::from_raw(ptr::null()) }.is_none());
}

#[test]
fn log_writes_only_what_the_host_would_show() {
    let _g = with_host();
    VERBOSITY.store(sys::SCORIA_LOG_V1, Ordering::SeqCst);
    scoria::log(Level::Info, "shown");
    scoria::log(Level::V2, "hidden");
    let formatted = AtomicUsize::new(0);
    let expensive = || {
        formatted.fetch_add(1, Ordering::SeqCst);
        "x"
    };
    scoria::log!(Level::V3, "not formatted: {}", expensive());
    scoria::log!(Level::Warning, "formatted: {}", expensive());
    scoria::report_error("broke");
    assert_eq!(formatted.load(Ordering::SeqCst), 1);
    assert!(scoria::log_enabled(Level::V1) && !scoria::log_enabled(Level::V2));
    assert_eq!(
        *LOGGED.lock().unwrap(),
        vec![
            (sys::SCORIA_LOG_INFO, "shown".to_string()),
            (sys::SCORIA_LOG_WARNING, "formatted: x".to_string()),
            (99, "broke".to_string()),
        ]
    );
}

#[test]
fn an_older_host_table_is_read_no_further_than_its_size() {
    let _g = with_host();
    // SAFETY: the short table is leaked, so it outlives the test.
    unsafe { assert!(!scoria_plugin_entry(1, 0, short_host(), ptr::null()).is_null()) };
    assert!(scoria::host_fn!(log).is_some());
    assert!(scoria::host_fn!(log_enabled).is_none());
    assert!(scoria::host_fn!(namespace_label).is_none());
    let before = ENABLED_ASKED.load(Ordering::SeqCst);
    scoria::log(Level::Error, "cannot ask whether to write");
    assert!(LOGGED.lock().unwrap().is_empty());
    assert_eq!(ENABLED_ASKED.load(Ordering::SeqCst), before);
    let raw = fake_args(&[("weight", b"7")]);
    // SAFETY: leaked fake arguments.
    let args = unsafe { Args::from_raw(raw) }.unwrap();
    assert_eq!(
        args.get_int("weight").unwrap_err().problem,
        "cannot be read: there is no host table"
    );
}

#[test]
fn write_message_cuts_at_a_character_and_terminates() {
    let mut buf = [0x7f as c_char; 6];
    // SAFETY: buf holds 6 bytes.
    unsafe { scoria::write_message(buf.as_mut_ptr(), buf.len(), "abcé-fgh") };
    // "abcé" is 5 bytes; "abcé-" would need 6 plus the NUL.
    assert_eq!(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap(), "abcé");
    // SAFETY: null is allowed and writes nothing.
    unsafe { scoria::write_message(ptr::null_mut(), 10, "x") };
}

#[test]
fn guarded_turns_a_panic_into_its_answer_and_reports_it() {
    let _g = with_host();
    let answer = scoria::guarded(sys::SCORIA_ERROR, || -> scoria_code { panic!("bad node") });
    assert_eq!(answer, sys::SCORIA_ERROR);
    assert_eq!(scoria::guarded(sys::SCORIA_ERROR, || sys::SCORIA_OK), sys::SCORIA_OK);
    assert_eq!(*LOGGED.lock().unwrap(), vec![(99, "panicked: bad node".to_string())]);
}

#[test]
#[should_panic(expected = "a C string cannot hold NUL before its end")]
fn a_c_string_with_an_inner_nul_is_refused() {
    scoria::CStrLit::from_bytes_with_nul(b"a\0b\0");
}

#[test]
#[should_panic(expected = "a C string must end with NUL")]
fn a_c_string_without_its_nul_is_refused() {
    scoria::CStrLit::from_bytes_with_nul(b"ab");
}
