//! The Scoria plugin ABI for Rust: every type, constant and function
//! pointer of `scoria.h`, as the C compiler lays them out.
//!
//! `bindings.rs` is generated from the header by `sdk/rust/generate.py`
//! (never edited by hand), and two tests keep it honest: one compares it
//! with what the generator makes of the current header, the other compares
//! the size and alignment of every struct, and the offset and size of every
//! field, with what the C compiler says (`tests/layout.rs`).
//!
//! Names are the header's: `scoria_descriptor`, `scoria_host_api`,
//! `SCORIA_OK`. A C enum is a type alias of its integer type with one
//! constant per enumerator (a Rust enum could not hold a value the header
//! does not define, and the host may send one). Function pointers are
//! `Option<unsafe extern "C" fn ...>` (NULL is `None`); opaque handles are
//! zero-sized `#[repr(C)]` structs only ever used behind pointers. Every
//! struct implements `Default` (all zero), and those that begin with
//! `struct_size` have `sized()`, which sets it.
//!
//! The ABI only appends: a host may hand out a `scoria_host_api` older and
//! smaller than this one. Read a field only after [`host_has!`] says the
//! host's table holds it, and never make a `&scoria_host_api` of it (a
//! reference promises the whole struct is there). The `scoria` crate does
//! this for you.

#[rustfmt::skip]
mod bindings;
pub use bindings::*;

/// Offset in bytes of `field` in the `#[repr(C)]` struct `T`, computed
/// without a value of `T` (Rust 1.63 has no `core::mem::offset_of!`).
#[macro_export]
macro_rules! offset_of {
    ($T:ty, $field:ident) => {{
        let probe = ::core::mem::MaybeUninit::<$T>::uninit();
        let base = probe.as_ptr();
        // SAFETY: addr_of! makes no reference, and reads nothing: it only
        // computes the address of a field of `probe`, which is in bounds.
        #[allow(unused_unsafe)]
        let field = unsafe { ::core::ptr::addr_of!((*base).$field) };
        field as usize - base as usize
    }};
}

/// Size in bytes of `field` in the struct `T` (as C's
/// `sizeof(((T*)0)->field)`).
#[macro_export]
macro_rules! field_size {
    ($T:ty, $field:ident) => {{
        let probe = ::core::mem::MaybeUninit::<$T>::uninit();
        let base = probe.as_ptr();
        // SAFETY: as in offset_of!: an address, never a read.
        #[allow(unused_unsafe)]
        let field = unsafe { ::core::ptr::addr_of!((*base).$field) };
        $crate::size_of_pointee(field)
    }};
}

/// `size_of::<T>()` for a pointer to `T`, which names a field's type for
/// [`field_size!`] without writing it.
#[doc(hidden)]
pub const fn size_of_pointee<T>(_: *const T) -> usize {
    std::mem::size_of::<T>()
}

/// `SCORIA_HOST_HAS(api, field)`: whether the host table at `api` is large
/// enough to hold `field`, judged by the `struct_size` the host wrote.
///
/// It reads `struct_size` through `api`, so it must be used in an `unsafe`
/// block, where the caller promises that `api` is the non-null table a host
/// passed to `scoria_plugin_entry` (valid while the plugin is loaded).
#[macro_export]
macro_rules! host_has {
    ($api:expr, $field:ident) => {{
        let api: *const $crate::scoria_host_api = $api;
        // struct_size is the first field: a u32 at offset 0 in every version.
        let size = (api as *const u32).read() as usize;
        size >= $crate::offset_of!($crate::scoria_host_api, $field)
            + $crate::field_size!($crate::scoria_host_api, $field)
    }};
}
