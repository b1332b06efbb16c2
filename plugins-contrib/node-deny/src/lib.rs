//! node-deny: a Scoria plugin written in Rust against the C header alone
//! (no bindings generator, no dependencies), proving the ABI is
//! language-neutral. A predicate keeps tasks off the nodes named in the
//! argument `nodes` (comma-separated).
//!
//! Only the prefixes of the ABI structs this plugin touches are declared
//! here, field for field as in scoria.h: the ABI only ever appends, so a
//! prefix stays valid in every 1.x host.

use std::os::raw::{c_char, c_void};
use std::sync::atomic::{AtomicPtr, Ordering};

const ABI_MAJOR: u16 = 1;
const ABI_MINOR: u16 = 1;
const KIND_PLUGIN: u32 = 2;

const OK: i32 = 0;
const INVALID_ARGUMENT: i32 = 5;
const UNSCHEDULABLE_AND_UNRESOLVABLE: i32 = 3;

#[repr(C)]
#[derive(Clone, Copy)]
struct Str {
    data: *const c_char,
    len: usize,
}

impl Str {
    fn from(s: &'static str) -> Str {
        Str { data: s.as_ptr() as *const c_char, len: s.len() }
    }
    unsafe fn as_bytes<'a>(&self) -> &'a [u8] {
        if self.len == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(self.data as *const u8, self.len)
        }
    }
}

type Unused = *const c_void; // a host function this plugin does not call

/// scoria_host_api, up to node_info.
#[repr(C)]
struct HostApi {
    struct_size: u32,
    abi_major: u16,
    abi_minor: u16,
    log: Unused,
    log_enabled: Unused,
    report_error: Unused,
    args_get_int: Unused,
    args_get_float: Unused,
    args_get_bool: Unused,
    args_get_string: unsafe extern "C" fn(*const c_void, Str, *mut Str) -> i32,
    args_count: Unused,
    args_key_at: Unused,
    reason_intern: unsafe extern "C" fn(Str) -> u32,
    reason_text: Unused,
    resource_dim_count: Unused,
    resource_dim_name: Unused,
    resource_dim_find: Unused,
    queue_count: Unused,
    queue_at: Unused,
    job_count: Unused,
    job_at: Unused,
    node_count: Unused,
    node_at: Unused,
    node_find: Unused,
    queue_find: Unused,
    job_task_count: Unused,
    job_task_at: Unused,
    node_task_count: Unused,
    node_task_at: Unused,
    task_info: Unused,
    job_info: Unused,
    queue_info: Unused,
    node_info: unsafe extern "C" fn(*const c_void, *mut NodeInfo) -> i32,
}

/// scoria_node_info, up to name: the host fills no more than struct_size.
#[repr(C)]
struct NodeInfo {
    struct_size: u32,
    index: u32,
    name: Str,
}

type Predicate = unsafe extern "C" fn(*mut c_void, *const c_void, *const c_void, *mut u32) -> i32;

/// scoria_hooks, up to on_predicate.
#[repr(C)]
struct Hooks {
    struct_size: u32,
    reserved0: u32,
    user_data: *mut c_void,
    on_job_order: Unused,
    on_queue_order: Unused,
    on_task_order: Unused,
    on_victim_queue_order: Unused,
    on_predicate: Option<Predicate>,
}

#[repr(C)]
struct Descriptor {
    struct_size: u32,
    abi_major: u16,
    abi_minor: u16,
    name: *const c_char,
    kind: u32,
    flags: u32,
    version: *const c_char,
    description: *const c_char,
    on_create: unsafe extern "C" fn(*const c_void, *const c_void, *mut *mut c_void, *mut c_char, usize) -> i32,
    on_destroy: unsafe extern "C" fn(*mut c_void),
    on_session_open: unsafe extern "C" fn(*mut c_void, *mut c_void, *mut Hooks) -> i32,
    on_session_close: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
    on_execute: Option<unsafe extern "C" fn(*mut c_void, *mut c_void) -> i32>,
}

/// The descriptor lives as long as the library: a static, shared read-only.
struct Shared(Descriptor);
unsafe impl Sync for Shared {}

static HOST: AtomicPtr<HostApi> = AtomicPtr::new(std::ptr::null_mut());

struct Instance {
    denied: Vec<Vec<u8>>,
    reason: u32,
}

fn host<'a>() -> &'a HostApi {
    unsafe { &*HOST.load(Ordering::Acquire) }
}

unsafe fn write_error(buf: *mut c_char, cap: usize, msg: &str) {
    if buf.is_null() || cap == 0 {
        return;
    }
    let n = msg.len().min(cap - 1);
    std::ptr::copy_nonoverlapping(msg.as_ptr() as *const c_char, buf, n);
    *buf.add(n) = 0;
}

unsafe extern "C" fn on_create(
    _ctx: *const c_void,
    args: *const c_void,
    instance: *mut *mut c_void,
    error: *mut c_char,
    error_capacity: usize,
) -> i32 {
    let mut list = Str { data: std::ptr::null(), len: 0 };
    if args.is_null() || (host().args_get_string)(args, Str::from("nodes"), &mut list) != OK {
        write_error(error, error_capacity, "argument \"nodes\" is required: node names, comma-separated");
        return INVALID_ARGUMENT;
    }
    let denied = list
        .as_bytes()
        .split(|b| *b == b',')
        .map(|name| {
            let start = name.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(name.len());
            let end = name.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(start, |e| e + 1);
            name[start..end].to_vec()
        })
        .filter(|name| !name.is_empty())
        .collect();
    let reason = (host().reason_intern)(Str::from("node(s) denied by node-deny"));
    *instance = Box::into_raw(Box::new(Instance { denied, reason })) as *mut c_void;
    OK
}

unsafe extern "C" fn on_destroy(instance: *mut c_void) {
    if !instance.is_null() {
        drop(Box::from_raw(instance as *mut Instance));
    }
}

/// Called from several threads at once: it only reads.
unsafe extern "C" fn predicate(
    user_data: *mut c_void,
    _task: *const c_void,
    node: *const c_void,
    reason: *mut u32,
) -> i32 {
    let inst = &*(user_data as *const Instance);
    let mut info = NodeInfo {
        struct_size: std::mem::size_of::<NodeInfo>() as u32,
        index: 0,
        name: Str { data: std::ptr::null(), len: 0 },
    };
    if (host().node_info)(node, &mut info) != OK {
        return OK;
    }
    let name = info.name.as_bytes();
    if inst.denied.iter().any(|d| d.as_slice() == name) {
        if !reason.is_null() {
            *reason = inst.reason;
        }
        return UNSCHEDULABLE_AND_UNRESOLVABLE;
    }
    OK
}

unsafe extern "C" fn on_session_open(instance: *mut c_void, _ssn: *mut c_void, hooks: *mut Hooks) -> i32 {
    (*hooks).user_data = instance;
    (*hooks).on_predicate = Some(predicate);
    OK
}

static DESCRIPTOR: Shared = Shared(Descriptor {
    struct_size: std::mem::size_of::<Descriptor>() as u32,
    abi_major: ABI_MAJOR,
    abi_minor: ABI_MINOR,
    name: b"node-deny\0".as_ptr() as *const c_char,
    kind: KIND_PLUGIN,
    flags: 0,
    version: b"1.0.0\0".as_ptr() as *const c_char,
    description: b"Keeps tasks off the nodes named in `nodes` (Rust)\0".as_ptr() as *const c_char,
    on_create,
    on_destroy,
    on_session_open,
    on_session_close: None,
    on_execute: None,
});

/// The entry point every Scoria plugin exports.
#[no_mangle]
pub unsafe extern "C" fn scoria_plugin_entry(
    host_major: u32,
    _host_minor: u32,
    api: *const c_void,
    _ctx: *const c_void,
) -> *const c_void {
    if host_major != ABI_MAJOR as u32 || api.is_null() {
        return std::ptr::null();
    }
    HOST.store(api as *mut HostApi, Ordering::Release);
    &DESCRIPTOR.0 as *const Descriptor as *const c_void
}
