//! node-deny: a Scoria plugin in Rust. A predicate keeps tasks off the
//! nodes named in its argument `nodes` (a list, or names separated by
//! commas).
//!
//! It uses the SDK's Rust crates: `scoria-sys`, the ABI generated from
//! scoria.h, through `scoria`, the safe layer over it. The argument is
//! declared, so the host refuses a config that misspells it or gives it
//! something other than a list, before the plugin ever runs.

use scoria::sys::{self, scoria_args, scoria_code, scoria_hooks, scoria_node, scoria_plugin_ctx};
use scoria::sys::{scoria_session, scoria_task};
use scoria::{c_str, ArgSpec, ArgType, Args, Descriptor, Level};
use std::os::raw::{c_char, c_void};

static ARGS: [ArgSpec; 1] = [ArgSpec::new(
    ArgType::List,
    c_str!("nodes"),
    None,
    c_str!("the nodes no task may run on: a list, or names separated by commas"),
)];

static DESCRIPTOR: Descriptor = Descriptor::plugin(
    c_str!("node-deny"),
    c_str!("1.1.0"),
    c_str!("Keeps tasks off the nodes named in `nodes` (Rust)"),
)
.on_create(on_create)
.on_destroy(on_destroy)
.on_session_open(on_session_open)
.declare_args(&ARGS);

scoria::define_plugin!(DESCRIPTOR);

struct Instance {
    denied: Vec<Vec<u8>>,
    reason: u32,
}

unsafe extern "C" fn on_create(
    _ctx: *const scoria_plugin_ctx,
    args: *const scoria_args,
    instance: *mut *mut c_void,
    error: *mut c_char,
    error_capacity: usize,
) -> scoria_code {
    // SAFETY: the host's arguments, read here only (the names are copied).
    let nodes = match Args::from_raw(args).map(|a| a.get_list("nodes")) {
        Some(Ok(Some(nodes))) => nodes,
        Some(Err(e)) => {
            scoria::write_message(error, error_capacity, &e.to_string());
            return sys::SCORIA_INVALID_ARGUMENT;
        }
        _ => {
            let msg = "argument \"nodes\" is required: the nodes to keep tasks off";
            scoria::write_message(error, error_capacity, msg);
            return sys::SCORIA_INVALID_ARGUMENT;
        }
    };
    let denied: Vec<Vec<u8>> = nodes.iter().map(|n| n.as_bytes().to_vec()).collect();
    let reason = match scoria::host_fn!(reason_intern) {
        Some(intern) => intern(scoria::str("node(s) denied by node-deny")),
        None => 0,
    };
    scoria::log!(
        Level::V2,
        "denying {} node(s): {}",
        denied.len(),
        nodes.join(", ")
    );
    *instance = Box::into_raw(Box::new(Instance { denied, reason })) as *mut c_void;
    sys::SCORIA_OK
}

unsafe extern "C" fn on_destroy(instance: *mut c_void) {
    if !instance.is_null() {
        // SAFETY: made by on_create's Box::into_raw, destroyed once.
        drop(Box::from_raw(instance as *mut Instance));
    }
}

/// Called from several threads at once: it only reads.
unsafe extern "C" fn predicate(
    user_data: *mut c_void,
    _task: *const scoria_task,
    node: *const scoria_node,
    reason: *mut u32,
) -> scoria_code {
    // SAFETY: user_data is the Instance on_session_open registered, alive
    // until on_destroy, which comes after the session.
    let inst = &*(user_data as *const Instance);
    let node_info = match scoria::host_fn!(node_info) {
        Some(f) => f,
        None => return sys::SCORIA_ERROR,
    };
    let mut info = sys::scoria_node_info::sized();
    if node_info(node, &mut info) != sys::SCORIA_OK {
        // Fail closed: the host keeps the task off a node it could not check.
        return sys::SCORIA_ERROR;
    }
    // SAFETY: the host's string, valid for the session.
    let name = scoria::view(&info.name);
    if inst.denied.iter().any(|d| d.as_slice() == name) {
        if !reason.is_null() {
            *reason = inst.reason;
        }
        return sys::SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
    }
    sys::SCORIA_OK
}

unsafe extern "C" fn on_session_open(
    instance: *mut c_void,
    _ssn: *mut scoria_session,
    hooks: *mut scoria_hooks,
) -> scoria_code {
    (*hooks).user_data = instance;
    (*hooks).on_predicate = Some(predicate);
    sys::SCORIA_OK
}
