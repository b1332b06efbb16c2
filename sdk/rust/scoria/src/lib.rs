//! A small, safe layer over [`scoria_sys`] (the generated bindings of
//! `scoria.h`) for writing Scoria plugins in Rust:
//!
//! - [`define_plugin!`] defines the exported entry point: it refuses a host
//!   of another ABI major, keeps the host table and the plugin's context,
//!   and returns a [`Descriptor`] built in a `static`;
//! - [`Args`] reads the plugin's arguments (`get_int`, `get_float`,
//!   `get_bool`, `get_string`, `get_list`);
//! - [`ArgSpec`] and [`allowed!`] declare them (ABI 1.2), so that the host
//!   refuses a config that misspells one or gives it a value of the wrong
//!   type, and passes the declared defaults;
//! - [`log()`], [`log!`] and [`report_error`] write through the host;
//! - [`host_fn!`] fetches any host function, `None` when the host's table is
//!   too old to have it.
//!
//! Hooks stay `unsafe extern "C" fn`s with the types of `scoria_sys`, so
//! everything the header offers remains at hand. A complete plugin is
//! `plugins-contrib/node-deny`; in short:
//!
//! ```
//! use scoria::sys::{self, scoria_code, scoria_args, scoria_plugin_ctx};
//! use scoria::{c_str, ArgSpec, ArgType, Args, Descriptor};
//! use std::os::raw::{c_char, c_void};
//!
//! static ARGS: [ArgSpec; 1] = [ArgSpec::new(
//!     ArgType::Int, c_str!("weight"), Some(c_str!("10")), c_str!("how much the score counts"))
//!     .min(0.0)];
//!
//! unsafe extern "C" fn create(_: *const scoria_plugin_ctx, args: *const scoria_args,
//!                             instance: *mut *mut c_void, error: *mut c_char,
//!                             capacity: usize) -> scoria_code {
//!     // SAFETY: the host's arguments, read during on_create only.
//!     let weight = match Args::from_raw(args).map(|a| a.get_int("weight")) {
//!         Some(Ok(Some(w))) => w,
//!         _ => {
//!             scoria::write_message(error, capacity, "weight: a whole number is needed");
//!             return sys::SCORIA_INVALID_ARGUMENT;
//!         }
//!     };
//!     *instance = Box::into_raw(Box::new(weight)) as *mut c_void;
//!     sys::SCORIA_OK
//! }
//!
//! unsafe extern "C" fn destroy(instance: *mut c_void) {
//!     drop(Box::from_raw(instance as *mut i64));
//! }
//!
//! static DESCRIPTOR: Descriptor =
//!     Descriptor::plugin(c_str!("weighted"), c_str!("0.1.0"), c_str!("An example"))
//!         .on_create(create)
//!         .on_destroy(destroy)
//!         .declare_args(&ARGS);
//!
//! scoria::define_plugin!(DESCRIPTOR);
//! # fn main() {}
//! ```
//!
//! Nothing may unwind into the host: build the plugin with
//! `panic = "abort"` (as node-deny does), or run hook bodies in [`guarded`].

use std::fmt;
use std::marker::PhantomData;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

pub use scoria_sys as sys;

// ---------------------------------------------------------------------------
// The host table and the entry point
// ---------------------------------------------------------------------------

static HOST: AtomicPtr<sys::scoria_host_api> = AtomicPtr::new(ptr::null_mut());
static CTX: AtomicPtr<sys::scoria_plugin_ctx> = AtomicPtr::new(ptr::null_mut());

/// The host's table as the entry point received it; null until the host
/// has called [`define_plugin!`]'s entry. Read it with [`host_fn!`].
pub fn host_table() -> *const sys::scoria_host_api {
    HOST.load(Ordering::Acquire)
}

/// This shared object's context, as the entry point received it (what the
/// host's `log`, `log_enabled` and `report_error` take).
pub fn plugin_ctx() -> *const sys::scoria_plugin_ctx {
    CTX.load(Ordering::Acquire)
}

/// The body of the entry point [`define_plugin!`] defines: refuses a host
/// of another ABI major (and a null table), keeps `host` and `ctx`, and
/// returns the descriptor.
///
/// # Safety
///
/// `host` is null or a host table that stays valid while this shared
/// object is loaded, and `ctx` the context passed with it: what the host
/// passes to `scoria_plugin_entry`. Every safe function of this crate that
/// calls the host relies on it.
#[doc(hidden)]
pub unsafe fn entry(
    host_major: u32,
    _host_minor: u32,
    host: *const sys::scoria_host_api,
    ctx: *const sys::scoria_plugin_ctx,
    descriptor: &'static Descriptor,
) -> *const sys::scoria_descriptor {
    // A newer minor host loads this plugin and an older one refuses it by
    // the descriptor's abi_minor; only the major is ours to check.
    if host_major != sys::SCORIA_ABI_VERSION_MAJOR || host.is_null() {
        return ptr::null();
    }
    CTX.store(ctx as *mut sys::scoria_plugin_ctx, Ordering::Release);
    HOST.store(host as *mut sys::scoria_host_api, Ordering::Release);
    descriptor.as_raw()
}

/// Defines `scoria_plugin_entry`, the one symbol a plugin exports, for the
/// `static` [`Descriptor`] named. It refuses (returns NULL to) a host of
/// another ABI major, keeps the host table and context for the rest of this
/// crate, and returns the descriptor. Its signature is checked at compile
/// time against the header's `scoria_entry_fn`.
#[macro_export]
macro_rules! define_plugin {
    ($descriptor:path) => {
        /// The entry point of this Scoria plugin (scoria.h's
        /// `scoria_plugin_entry`), defined by `scoria::define_plugin!`.
        ///
        /// # Safety
        ///
        /// Called by the Scoria host only, with its table and context.
        #[no_mangle]
        pub unsafe extern "C" fn scoria_plugin_entry(
            host_major: u32,
            host_minor: u32,
            host: *const $crate::sys::scoria_host_api,
            ctx: *const $crate::sys::scoria_plugin_ctx,
        ) -> *const $crate::sys::scoria_descriptor {
            // SAFETY: the host passes a table and a context valid while the
            // plugin is loaded (scoria.h), which is what entry() asks.
            $crate::entry(host_major, host_minor, host, ctx, &$descriptor)
        }
        // The header's type of the entry: a change of it fails to compile here.
        const _: $crate::sys::scoria_entry_fn = Some(scoria_plugin_entry);
    };
}

/// The host function `field` of `scoria_host_api`, or `None` when there is
/// no host table yet or the host's is too old to hold it (the
/// `SCORIA_HOST_HAS` check). Calling it is `unsafe`: it is the host's
/// function with the header's contract.
///
/// ```
/// use scoria::sys;
///
/// /// The name of a node the host handed to a hook.
/// fn node_name(node: *const sys::scoria_node) -> Option<Vec<u8>> {
///     let node_info = scoria::host_fn!(node_info)?;
///     let mut info = sys::scoria_node_info::sized();
///     // SAFETY: `node` is a handle of the current session, from the host.
///     if unsafe { node_info(node, &mut info) } != sys::SCORIA_OK {
///         return None;
///     }
///     // SAFETY: the host's string, valid for the session; copied at once.
///     Some(unsafe { scoria::view(&info.name) }.to_vec())
/// }
/// ```
#[macro_export]
macro_rules! host_fn {
    ($field:ident) => {{
        let api = $crate::host_table();
        if api.is_null() {
            None
        } else {
            // SAFETY: a non-null host_table() is the table the host passed to
            // the entry point, valid while the plugin is loaded (entry()'s
            // contract), so its struct_size may be read; the field is read
            // only when struct_size says the host's table holds it, at its
            // offset, which is within what the host allocated. No reference
            // to the whole (possibly larger) struct is made.
            unsafe {
                if $crate::sys::host_has!(api, $field) {
                    let probe = ::core::mem::MaybeUninit::<$crate::sys::scoria_host_api>::uninit();
                    let typed = ::core::ptr::addr_of!((*probe.as_ptr()).$field);
                    let at = (api as *const u8)
                        .add($crate::sys::offset_of!($crate::sys::scoria_host_api, $field));
                    $crate::read_as(typed, at)
                } else {
                    None
                }
            }
        }
    }};
}

/// Reads a `T` at `at`, `probe` only naming the type.
///
/// # Safety
///
/// `at` is valid for reads of a `T` and aligned for it.
#[doc(hidden)]
pub unsafe fn read_as<T: Copy>(_probe: *const T, at: *const u8) -> T {
    (at as *const T).read()
}

// ---------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------

/// A `scoria_str` viewing `s`, for handing text to the host (which reads it
/// only during the call). Keep `s` alive until the call returns.
pub fn str(s: &str) -> sys::scoria_str {
    sys::scoria_str { data: s.as_ptr() as *const c_char, len: s.len() }
}

/// The bytes of a `scoria_str` the host handed out.
///
/// # Safety
///
/// `s` came from the host and `'a` ends before what it points to is freed
/// (the session's end, or `on_destroy` for argument strings: each getter
/// says).
pub unsafe fn view<'a>(s: &sys::scoria_str) -> &'a [u8] {
    if s.len == 0 || s.data.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(s.data as *const u8, s.len)
    }
}

/// Writes `message` into a host-owned buffer of `capacity` bytes
/// (`on_create`'s `error`, `on_job_valid`'s `message`), cut at a character
/// boundary to fit, and NUL-terminated. Does nothing if `buf` is null or
/// `capacity` is 0.
///
/// # Safety
///
/// `buf` is null or valid for writes of `capacity` bytes.
pub unsafe fn write_message(buf: *mut c_char, capacity: usize, message: &str) {
    if buf.is_null() || capacity == 0 {
        return;
    }
    let mut n = message.len().min(capacity - 1);
    while !message.is_char_boundary(n) {
        n -= 1;
    }
    ptr::copy_nonoverlapping(message.as_ptr() as *const c_char, buf, n);
    *buf.add(n) = 0;
}

/// A NUL-terminated string that lives for the whole program, as the
/// descriptor and argument declarations need. Make one with [`c_str!`].
#[derive(Clone, Copy, Debug)]
pub struct CStrLit(&'static [u8]);

impl CStrLit {
    /// `bytes`, which must end with its only NUL; checked at compile time
    /// when used in a `static` (a bad literal fails the build).
    pub const fn from_bytes_with_nul(bytes: &'static [u8]) -> CStrLit {
        if bytes.is_empty() || bytes[bytes.len() - 1] != 0 {
            panic!("a C string must end with NUL");
        }
        let mut i = 0;
        while i + 1 < bytes.len() {
            if bytes[i] == 0 {
                panic!("a C string cannot hold NUL before its end");
            }
            i += 1;
        }
        CStrLit(bytes)
    }

    /// The string for C: valid, and NUL-terminated, forever.
    pub const fn as_ptr(self) -> *const c_char {
        self.0.as_ptr() as *const c_char
    }

    /// The bytes before the NUL.
    pub fn to_bytes(self) -> &'static [u8] {
        &self.0[..self.0.len() - 1]
    }
}

/// A [`CStrLit`] of a string literal: `c_str!("node-deny")`.
#[macro_export]
macro_rules! c_str {
    ($s:literal) => {
        $crate::CStrLit::from_bytes_with_nul(::core::concat!($s, "\0").as_bytes())
    };
}

// ---------------------------------------------------------------------------
// The descriptor and declared arguments
// ---------------------------------------------------------------------------

/// A `scoria_descriptor` that can live in a `static` (what the host needs:
/// it is read while the plugin is loaded), built with `const` methods as
/// the crate's example shows.
///
/// `struct_size` and the ABI version are this crate's, so the host knows
/// which fields to read.
#[repr(transparent)]
pub struct Descriptor(sys::scoria_descriptor);

// SAFETY: a Descriptor holds raw pointers only to data that lives for the
// whole program and is never written (string literals through CStrLit,
// `&'static [ArgSpec]`), and function pointers. Its field is private and no
// method hands out mutable access, so sharing it between threads (which is
// what the host does) cannot race.
unsafe impl Sync for Descriptor {}

type CreateFn = unsafe extern "C" fn(
    *const sys::scoria_plugin_ctx,
    *const sys::scoria_args,
    *mut *mut c_void,
    *mut c_char,
    usize,
) -> sys::scoria_code;
type SessionOpenFn = unsafe extern "C" fn(
    *mut c_void,
    *mut sys::scoria_session,
    *mut sys::scoria_hooks,
) -> sys::scoria_code;

impl Descriptor {
    const fn new(
        kind: sys::scoria_kind,
        name: CStrLit,
        version: CStrLit,
        description: CStrLit,
    ) -> Descriptor {
        Descriptor(sys::scoria_descriptor {
            struct_size: std::mem::size_of::<sys::scoria_descriptor>() as u32,
            abi_major: sys::SCORIA_ABI_VERSION_MAJOR as u16,
            abi_minor: sys::SCORIA_ABI_VERSION_MINOR as u16,
            name: name.as_ptr(),
            kind,
            flags: 0,
            version: version.as_ptr(),
            description: description.as_ptr(),
            on_create: None,
            on_destroy: None,
            on_session_open: None,
            on_session_close: None,
            on_execute: None,
            args: ptr::null(),
            arg_count: 0,
        })
    }

    /// A policy plugin (sits in a tier, registers hooks in
    /// `on_session_open`): its config name, its own version, one line for
    /// `scoria plugins`.
    pub const fn plugin(name: CStrLit, version: CStrLit, description: CStrLit) -> Descriptor {
        Descriptor::new(sys::SCORIA_KIND_PLUGIN, name, version, description)
    }

    /// An action (runs `on_execute` once per session, in config order).
    pub const fn action(name: CStrLit, version: CStrLit, description: CStrLit) -> Descriptor {
        Descriptor::new(sys::SCORIA_KIND_ACTION, name, version, description)
    }

    // Each setter's assignment is checked by the compiler against the
    // generated field's type, so a signature here cannot drift from the header.

    /// `on_create`: makes an instance from the arguments.
    pub const fn on_create(mut self, f: CreateFn) -> Descriptor {
        self.0.on_create = Some(f);
        self
    }

    /// `on_destroy`: frees an instance made by `on_create`.
    pub const fn on_destroy(mut self, f: unsafe extern "C" fn(*mut c_void)) -> Descriptor {
        self.0.on_destroy = Some(f);
        self
    }

    /// `on_session_open` (plugins): registers hooks for the session.
    pub const fn on_session_open(mut self, f: SessionOpenFn) -> Descriptor {
        self.0.on_session_open = Some(f);
        self
    }

    /// `on_session_close` (plugins).
    pub const fn on_session_close(
        mut self,
        f: unsafe extern "C" fn(*mut c_void, *mut sys::scoria_session),
    ) -> Descriptor {
        self.0.on_session_close = Some(f);
        self
    }

    /// `on_execute` (actions).
    pub const fn on_execute(
        mut self,
        f: unsafe extern "C" fn(*mut c_void, *mut sys::scoria_session) -> sys::scoria_code,
    ) -> Descriptor {
        self.0.on_execute = Some(f);
        self
    }

    /// `SCORIA_FLAG_SERIAL_HOOKS`: call this plugin's hooks from one thread.
    pub const fn serial_hooks(mut self) -> Descriptor {
        self.0.flags |= sys::SCORIA_FLAG_SERIAL_HOOKS;
        self
    }

    /// Declares every argument the plugin takes (`SCORIA_FLAG_DECLARES_ARGS`;
    /// `&[]` for none): the host then refuses a config giving it another
    /// argument, or a value of the wrong type or out of range.
    pub const fn declare_args(mut self, args: &'static [ArgSpec]) -> Descriptor {
        self.0.flags |= sys::SCORIA_FLAG_DECLARES_ARGS;
        // ArgSpec is #[repr(transparent)] over scoria_arg_spec.
        self.0.args = args.as_ptr() as *const sys::scoria_arg_spec;
        self.0.arg_count = args.len();
        self
    }

    /// The descriptor as the header has it.
    pub const fn as_raw(&self) -> &sys::scoria_descriptor {
        &self.0
    }
}

/// The type of a declared argument, and so the form the host accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgType {
    /// true or false; read with [`Args::get_bool`].
    Bool,
    /// A whole number; [`Args::get_int`].
    Int,
    /// A finite number; [`Args::get_float`].
    Float,
    /// Any text (or one of [`allowed!`]); [`Args::get_string`].
    String,
    /// A Kubernetes quantity (500m, 1.5Gi); [`Args::get_string`].
    Quantity,
    /// A Go duration (30s, 1h30m); [`Args::get_string`].
    Duration,
    /// A list, or its items in one text separated by commas;
    /// [`Args::get_list`].
    List,
    /// A map with keys of the user's choosing, arriving as NAME.KEY.
    Map,
}

impl ArgType {
    /// The `scoria_arg_type` value.
    pub const fn raw(self) -> sys::scoria_arg_type {
        match self {
            ArgType::Bool => sys::SCORIA_ARG_BOOL,
            ArgType::Int => sys::SCORIA_ARG_INT,
            ArgType::Float => sys::SCORIA_ARG_FLOAT,
            ArgType::String => sys::SCORIA_ARG_STRING,
            ArgType::Quantity => sys::SCORIA_ARG_QUANTITY,
            ArgType::Duration => sys::SCORIA_ARG_DURATION,
            ArgType::List => sys::SCORIA_ARG_LIST,
            ArgType::Map => sys::SCORIA_ARG_MAP,
        }
    }
}

/// One declared argument (`scoria_arg_spec`), for a `static` array that
/// [`Descriptor::declare_args`] takes:
///
/// ```
/// use scoria::{c_str, ArgSpec, ArgType};
///
/// static ARGS: [ArgSpec; 2] = [
///     ArgSpec::new(ArgType::Int, c_str!("weight"), Some(c_str!("1")), c_str!("score weight"))
///         .min(0.0).max(100.0),
///     ArgSpec::new(ArgType::String, c_str!("mode"), Some(c_str!("fast")), c_str!("how hard"))
///         .allowed(scoria::allowed!("fast", "thorough")),
/// ];
/// ```
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct ArgSpec(sys::scoria_arg_spec);

// SAFETY: as for Descriptor: the pointers are to string literals and to
// `allowed!` arrays, which live for the whole program and are never written.
unsafe impl Sync for ArgSpec {}

impl ArgSpec {
    /// An argument of `ty` named as the config writes it (a name ending in
    /// ".*" declares a family), with the default the host passes when the
    /// config leaves it out (as a config would write it; `None`: absent has
    /// a meaning of its own) and one line of help.
    pub const fn new(
        ty: ArgType,
        name: CStrLit,
        default: Option<CStrLit>,
        help: CStrLit,
    ) -> ArgSpec {
        ArgSpec(sys::scoria_arg_spec {
            struct_size: std::mem::size_of::<sys::scoria_arg_spec>() as u32,
            r#type: ty.raw(),
            name: name.as_ptr(),
            default_value: match default {
                Some(d) => d.as_ptr(),
                None => ptr::null(),
            },
            help: help.as_ptr(),
            allowed: ptr::null(),
            bounds: 0,
            reserved0: 0,
            min: 0.0,
            max: 0.0,
        })
    }

    /// An inclusive lower bound (int, float, quantity; duration in seconds).
    pub const fn min(mut self, min: f64) -> ArgSpec {
        self.0.bounds |= sys::SCORIA_ARG_HAS_MIN;
        self.0.min = min;
        self
    }

    /// An inclusive upper bound.
    pub const fn max(mut self, max: f64) -> ArgSpec {
        self.0.bounds |= sys::SCORIA_ARG_HAS_MAX;
        self.0.max = max;
        self
    }

    /// The only values accepted (string, and list items).
    pub const fn allowed(mut self, values: Allowed) -> ArgSpec {
        self.0.allowed = values.0.as_ptr();
        self
    }

    /// The spec as the header has it.
    pub const fn as_raw(&self) -> &sys::scoria_arg_spec {
        &self.0
    }
}

/// A NULL-terminated array of accepted values; made by [`allowed!`].
#[derive(Clone, Copy)]
pub struct Allowed(&'static [*const c_char]);

// SAFETY: the pointers are to string literals, never written.
unsafe impl Sync for Allowed {}

impl Allowed {
    /// # Safety
    ///
    /// `values` ends with a null pointer, and every other item is a
    /// NUL-terminated string that lives for the whole program. [`allowed!`]
    /// makes such an array.
    #[doc(hidden)]
    pub const unsafe fn from_raw(values: &'static [*const c_char]) -> Allowed {
        Allowed(values)
    }
}

/// The values an argument accepts: `allowed!("fast", "thorough")`.
#[macro_export]
macro_rules! allowed {
    ($($value:literal),* $(,)?) => {{
        const VALUES: &[*const ::std::os::raw::c_char] =
            &[$($crate::c_str!($value).as_ptr(),)* ::core::ptr::null()];
        // SAFETY: string literals made NUL-terminated by c_str!, then NULL.
        unsafe { $crate::Allowed::from_raw(VALUES) }
    }};
}

// ---------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------

/// An argument could not be read as asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError {
    /// The argument's key.
    pub key: String,
    /// What is wrong, e.g. "is not a whole number".
    pub problem: String,
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "argument \"{}\" {}", self.key, self.problem)
    }
}

impl std::error::Error for ArgError {}

fn arg_error(key: &str, problem: &str) -> ArgError {
    ArgError { key: key.to_string(), problem: problem.to_string() }
}

type GetFn<T> =
    unsafe extern "C" fn(*const sys::scoria_args, sys::scoria_str, *mut T) -> sys::scoria_code;

/// The `arguments` of a plugin from the config, as `on_create` receives
/// them. Every getter answers `Ok(Some(value))`, `Ok(None)` when the config
/// does not give the argument (and declares no default), or an error
/// naming the argument when it is not of the type asked.
#[derive(Clone, Copy)]
pub struct Args<'a> {
    raw: *const sys::scoria_args,
    _host_owned: PhantomData<&'a sys::scoria_args>,
}

impl<'a> Args<'a> {
    /// The arguments at `raw`; `None` if it is null.
    ///
    /// # Safety
    ///
    /// `raw` is the `args` the host passed to `on_create` (or null), and
    /// `'a` ends no later than the host's `on_destroy` of the instance made
    /// from them: the strings the getters return are the host's until then.
    pub unsafe fn from_raw(raw: *const sys::scoria_args) -> Option<Args<'a>> {
        if raw.is_null() {
            None
        } else {
            Some(Args { raw, _host_owned: PhantomData })
        }
    }

    fn get<T>(
        &self,
        key: &str,
        f: Option<GetFn<T>>,
        mut out: T,
        expected: &str,
    ) -> Result<Option<T>, ArgError> {
        let f = f.ok_or_else(|| arg_error(key, "cannot be read: there is no host table"))?;
        // SAFETY: self.raw is the host's argument table (from_raw's
        // contract), the key is read during the call only, and `out` is a
        // valid place for the host to write a T.
        let code = unsafe { f(self.raw, str(key), &mut out) };
        match code {
            sys::SCORIA_OK => Ok(Some(out)),
            sys::SCORIA_NOT_FOUND => Ok(None),
            sys::SCORIA_INVALID_ARGUMENT => Err(arg_error(key, expected)),
            other => Err(arg_error(key, &format!("could not be read (host code {})", other))),
        }
    }

    /// An integer argument.
    pub fn get_int(&self, key: &str) -> Result<Option<i64>, ArgError> {
        self.get(key, host_fn!(args_get_int), 0, "is not a whole number")
    }

    /// A number argument (integer or float; never NaN or infinite).
    pub fn get_float(&self, key: &str) -> Result<Option<f64>, ArgError> {
        self.get(key, host_fn!(args_get_float), 0.0, "is not a number")
    }

    /// A boolean argument (true/false).
    pub fn get_bool(&self, key: &str) -> Result<Option<bool>, ArgError> {
        let v: Option<c_int> = self.get(key, host_fn!(args_get_bool), 0, "is not true or false")?;
        Ok(v.map(|b| b != 0))
    }

    /// An argument as the config wrote it (numbers and booleans too).
    pub fn get_string(&self, key: &str) -> Result<Option<&'a str>, ArgError> {
        let empty = sys::scoria_str { data: ptr::null(), len: 0 };
        match self.get(key, host_fn!(args_get_string), empty, "cannot be read as text")? {
            None => Ok(None),
            // SAFETY: the host's string, valid until on_destroy, which 'a
            // does not outlive (from_raw's contract).
            Some(s) => match std::str::from_utf8(unsafe { view(&s) }) {
                Ok(text) => Ok(Some(text)),
                Err(_) => Err(arg_error(key, "is not UTF-8")),
            },
        }
    }

    /// A list argument's items, in either form the host passes a list:
    /// written as a list in the config it arrives as `KEY.0`, `KEY.1`, ...;
    /// written as text, its items are separated by commas (trimmed, empty
    /// ones dropped). Items that are maps (`KEY.0.FIELD`) are not returned:
    /// read those with [`Args::keys`].
    pub fn get_list(&self, key: &str) -> Result<Option<Vec<&'a str>>, ArgError> {
        if let Some(text) = self.get_string(key)? {
            let items = text.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
            return Ok(Some(items));
        }
        let mut items = Vec::new();
        while let Some(item) = self.get_string(&format!("{}.{}", key, items.len()))? {
            items.push(item);
        }
        Ok(if items.is_empty() { None } else { Some(items) })
    }

    /// Every key the config gave (flattened: `a.b`, `list.0`), in the
    /// host's order.
    pub fn keys(&self) -> Vec<&'a str> {
        let (count, key_at) = match (host_fn!(args_count), host_fn!(args_key_at)) {
            (Some(c), Some(k)) => (c, k),
            _ => return Vec::new(),
        };
        // SAFETY: the host's argument table (from_raw's contract); the keys
        // are the host's until on_destroy, which 'a does not outlive.
        unsafe {
            (0..count(self.raw))
                .filter_map(|i| std::str::from_utf8(view(&key_at(self.raw, i))).ok())
                .collect()
        }
    }
}

// ---------------------------------------------------------------------------
// Logging
// ---------------------------------------------------------------------------

/// Log verbosity, as klog's -v levels (`scoria_log_level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Error,
    Warning,
    /// Always shown.
    Info,
    V1,
    V2,
    V3,
    V4,
    V5,
}

impl Level {
    /// The `scoria_log_level` value.
    pub const fn raw(self) -> sys::scoria_log_level {
        match self {
            Level::Error => sys::SCORIA_LOG_ERROR,
            Level::Warning => sys::SCORIA_LOG_WARNING,
            Level::Info => sys::SCORIA_LOG_INFO,
            Level::V1 => sys::SCORIA_LOG_V1,
            Level::V2 => sys::SCORIA_LOG_V2,
            Level::V3 => sys::SCORIA_LOG_V3,
            Level::V4 => sys::SCORIA_LOG_V4,
            Level::V5 => sys::SCORIA_LOG_V5,
        }
    }
}

/// Whether the host would write a line at `level` (false without a host).
pub fn log_enabled(level: Level) -> bool {
    match host_fn!(log_enabled) {
        // SAFETY: the host's function, called with the context it gave.
        Some(enabled) => unsafe { enabled(plugin_ctx(), level.raw()) != 0 },
        None => false,
    }
}

/// Writes `message` to the host's log at `level`, tagged with the plugin's
/// name, if the host writes that level.
pub fn log(level: Level, message: &str) {
    if log_enabled(level) {
        log_unchecked(level, message);
    }
}

#[doc(hidden)]
pub fn log_unchecked(level: Level, message: &str) {
    if let Some(log) = host_fn!(log) {
        // SAFETY: the host's function, called with the context it gave; the
        // message is read during the call only.
        unsafe { log(plugin_ctx(), level.raw(), str(message)) }
    }
}

/// `log!(Level::V2, "placed {} on {}", task, node)`: formats only when the
/// host writes that level.
#[macro_export]
macro_rules! log {
    ($level:expr, $($arg:tt)+) => {{
        let level: $crate::Level = $level;
        if $crate::log_enabled(level) {
            $crate::log_unchecked(level, &::std::format!($($arg)+));
        }
    }};
}

/// Records why the hook about to return `SCORIA_ERROR` failed; the host
/// logs it with the plugin's name and counts it.
pub fn report_error(message: &str) {
    if let Some(report) = host_fn!(report_error) {
        // SAFETY: as for log.
        unsafe { report(plugin_ctx(), str(message)) }
    }
}

/// Runs `f`; if it panics, reports the panic to the host and returns
/// `on_panic` instead, so that no panic unwinds into the host (undefined
/// behaviour through `extern "C"` before Rust 1.81). Only for plugins built
/// with `panic = "unwind"`; with `"abort"` a panic ends the process anyway.
pub fn guarded<R>(on_panic: R, f: impl FnOnce() -> R) -> R {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            report_error(&format!("panicked: {}", what));
            on_panic
        }
    }
}
