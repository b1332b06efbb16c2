// The heap of a process that holds a large cluster. On a VM a page fault is
// costly, and a large cluster's load and first session touch gigabytes of
// heap, so the heap is set up to fault less:
// - transparent huge pages: 2 MB pages fault 512 times less often. glibc
//   backs its heap with them only when asked (the tunable
//   glibc.malloc.hugetlb=1, see tunables(7)), and reads its tunables only
//   as a process starts, so the process starts again, once, asking;
// - freed memory kept: glibc gives a large block (128 KiB and up: a
//   batch's document trees, a list of objects, a session's arrays) back to
//   the kernel when it is freed, and the next one faults zeroed pages in
//   again. Loading a cluster frees and allocates such blocks phase after
//   phase, so each phase paid for fresh pages where freed ones would do.
#pragma once

#include <span>
#include <string_view>

namespace scoria::cli {

/// Whether a command given `args` (a simulate's or a trace's) may hold a
/// cluster large enough for the restart below to pay: its input files
/// (every argument naming a regular file) come to 1 MiB or more, or one is
/// read from a pipe or standard input, whose size is not known. A small
/// cluster's heap is a few megabytes: the restart costs it more than huge
/// pages save.
bool may_hold_a_large_cluster(std::span<const std::string_view> args);

/// Replaces this process by itself with glibc.malloc.hugetlb=1 added to
/// GLIBC_TUNABLES, when the kernel gives huge pages only to memory that
/// asks for them (transparent_hugepage/enabled is "madvise") and nothing
/// set that tunable yet. Returns when there is nothing to do or the exec
/// fails; on success it does not return. Setting
/// GLIBC_TUNABLES=glibc.malloc.hugetlb=0 keeps the heap on small pages.
void restart_with_huge_pages(char** argv);

/// Makes every block come from the heap (mallopt M_MMAP_MAX 0) and the
/// heap's top go back to the kernel only past 2 GiB free (M_TRIM_THRESHOLD),
/// so that memory freed is what the next allocations use. Peak memory is
/// unchanged; memory after a peak stays with the process, as a service
/// holding a cluster would take it again at the next relist. Does nothing
/// under another allocator (the sanitizers') or when GLIBC_TUNABLES sets
/// either already; returns whether it set them.
bool keep_freed_heap();

}  // namespace scoria::cli
