// allocbuild's Rust fixture (recipes/rust-jemalloc-tuning.json): jemalloc
// from the jemalloc-sys crate as the global allocator, through its FFI (no
// jemallocator crate needed), and a short workload from a few threads.
// With an argument N it runs N rounds; without, a handful, so that a probe
// run ends at once.
use std::alloc::{GlobalAlloc, Layout};
use std::os::raw::{c_int, c_void};
use std::thread;

struct Jemalloc;

// jemalloc's MALLOCX_LG_ALIGN, needed when the alignment exceeds what
// the size class gives anyway
fn flags(l: &Layout) -> c_int {
    if l.align() <= 16 && l.align() <= l.size() {
        0
    } else {
        l.align().trailing_zeros() as c_int
    }
}

unsafe impl GlobalAlloc for Jemalloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        jemalloc_sys::mallocx(l.size(), flags(&l)) as *mut u8
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        jemalloc_sys::mallocx(l.size(), flags(&l) | jemalloc_sys::MALLOCX_ZERO) as *mut u8
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        jemalloc_sys::sdallocx(p as *mut c_void, l.size(), flags(&l))
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
        jemalloc_sys::rallocx(p as *mut c_void, size, flags(&l)) as *mut u8
    }
}

#[global_allocator]
static GLOBAL: Jemalloc = Jemalloc;

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(4);
    let workers: Vec<_> = (0..4)
        .map(|t| {
            thread::spawn(move || {
                let mut kept = 0usize;
                for r in 0..rounds {
                    // small, medium and one large allocation per round
                    let v: Vec<Vec<u8>> = (0..256).map(|i| vec![t as u8; 16 + (i * 37 + r) % 4000]).collect();
                    let big = vec![1u8; 1 << 20];
                    kept += v.iter().map(|x| x.len()).sum::<usize>() + big.len();
                }
                kept
            })
        })
        .collect();
    let total: usize = workers.into_iter().map(|w| w.join().unwrap()).sum();
    println!("rjtune: {} bytes in {} rounds", total, rounds);
}
