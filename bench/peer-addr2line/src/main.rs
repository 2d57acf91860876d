//! pcln-bench-addr2line -- the in-process peer of pcln-bench: gimli's
//! addr2line crate answering the same pcs on the ELF the blob was made
//! from (bench/run.sh; doc/PERFORMANCE.md explains the figures).
//!
//! Usage:
//!   pcln-bench-addr2line ELF PCSFILE [N [KIND...]]
//!       time each KIND (default: all) per pc over the first N pcs of
//!       PCSFILE (hex, one a line), random and sorted, median of 5
//!       passes after one warm-up ("cold") pass:
//!         line:   Context::find_location (file:line of the innermost
//!                 row, no function name);
//!         inline: Context::find_frames, every frame's function name
//!                 (raw, not demangled) and file:line, innermost first:
//!                 the full inline chain, what addr2line -f -i prints;
//!       and KIND first: the set-up (read the file, parse the ELF,
//!       Context::new) alone and with the first inline answer, median
//!       of 5.  Prints "name value" lines.
//!   pcln-bench-addr2line -loop ELF PCSFILE KIND N
//!       N lookups of KIND cycling over the first 65536 pcs (callgrind:
//!       the difference of two runs is the lookups alone).
use std::time::Instant;

use std::sync::atomic::{AtomicU64, Ordering};

use addr2line::object;

// Where results go, so that no lookup is optimised away.
static SINK: AtomicU64 = AtomicU64::new(0);

type Ctx = addr2line::Context<addr2line::gimli::EndianRcSlice<addr2line::gimli::RunTimeEndian>>;

fn die(what: &str) -> ! {
    eprintln!("pcln-bench-addr2line: {}", what);
    std::process::exit(1)
}

fn read_pcs(path: &str, max: usize) -> Vec<u64> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|_| die("cannot read the pcs file"));
    let mut v = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if v.len() >= max {
            break;
        }
        let s = l.trim_start_matches("0x");
        match u64::from_str_radix(s, 16) {
            Ok(pc) => v.push(pc),
            Err(_) => die(&format!("{}:{}: expected a hex pc", path, i + 1)),
        }
    }
    if v.is_empty() {
        die("no pcs");
    }
    v
}

fn open(path: &str) -> Ctx {
    let data = std::fs::read(path).unwrap_or_else(|_| die("cannot read the ELF file"));
    let obj = object::File::parse(&*data).unwrap_or_else(|_| die("not an object file"));
    addr2line::Context::new(&obj).unwrap_or_else(|_| die("Context::new failed"))
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Line,
    Inline,
}

// One lookup: 1 if it answered a file and a line > 0.
fn lookup(c: &Ctx, k: Kind, pc: u64, acc: &mut u64) -> usize {
    match k {
        Kind::Line => match c.find_location(pc) {
            Ok(Some(l)) => {
                *acc += l.file.map_or(0, |f| f.len() as u64) + l.line.unwrap_or(0) as u64;
                (l.file.is_some() && l.line.unwrap_or(0) > 0) as usize
            }
            _ => 0,
        },
        Kind::Inline => {
            let mut ok = 0;
            if let Ok(mut frames) = c.find_frames(pc) {
                while let Ok(Some(f)) = frames.next() {
                    if let Some(func) = &f.function {
                        if let Ok(n) = func.raw_name() {
                            *acc += n.len() as u64;
                        }
                    }
                    if let Some(l) = &f.location {
                        *acc += l.file.map_or(0, |f| f.len() as u64) + l.line.unwrap_or(0) as u64;
                        ok = (l.line.unwrap_or(0) > 0) as usize;
                    }
                }
            }
            ok
        }
    }
}

fn run(c: &Ctx, k: Kind, pcs: &[u64]) -> usize {
    let mut acc = 0u64;
    let mut ok = 0;
    for &pc in pcs {
        ok += lookup(c, k, pc, &mut acc);
    }
    SINK.fetch_add(acc, Ordering::Relaxed);
    ok
}

fn median(mut d: Vec<f64>) -> f64 {
    d.sort_by(|a, b| a.partial_cmp(b).unwrap());
    d[d.len() / 2]
}

fn kind(s: &str) -> Option<Kind> {
    match s {
        "line" => Some(Kind::Line),
        "inline" => Some(Kind::Inline),
        "first" => None,
        _ => die("unknown KIND (line, inline, first)"),
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() > 1 && a[1] == "-loop" {
        if a.len() != 6 {
            die("usage: pcln-bench-addr2line -loop ELF PCSFILE KIND N");
        }
        let k = kind(&a[4]).unwrap_or_else(|| die("-loop needs line or inline"));
        let mut n: usize = a[5].parse().unwrap_or_else(|_| die("bad N"));
        let pcs = read_pcs(&a[3], 65536);
        let c = open(&a[2]);
        let mut ok = 0;
        while n > 0 {
            let m = n.min(pcs.len());
            ok += run(&c, k, &pcs[..m]);
            n -= m;
        }
        if ok == 0 {
            die("no pc answered");
        }
        return;
    }
    if a.len() < 3 {
        die("usage: pcln-bench-addr2line ELF PCSFILE [N [KIND...]]");
    }
    let max = if a.len() > 3 { a[3].parse().unwrap_or_else(|_| die("bad N")) } else { usize::MAX };
    let all = a.len() <= 4;
    let want = |s: &str| all || a[4..].iter().any(|x| x == s);
    let pcs = read_pcs(&a[2], max);
    let mut seq = pcs.clone();
    seq.sort_unstable();
    if want("first") {
        let (mut d0, mut d1) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            let t0 = Instant::now();
            let c = open(&a[1]);
            let t1 = Instant::now();
            let mut acc = 0;
            if lookup(&c, Kind::Inline, pcs[0], &mut acc) == 0 {
                die("first lookup failed");
            }
            d1.push(t0.elapsed().as_nanos() as f64);
            d0.push((t1 - t0).as_nanos() as f64);
            SINK.fetch_add(acc, Ordering::Relaxed);
        }
        println!("addr2line_setup_ns {:.0}", median(d0));
        println!("addr2line_first_lookup_ns {:.0}", median(d1));
    }
    let c = open(&a[1]);
    for (name, k) in [("line", Kind::Line), ("inline", Kind::Inline)] {
        if !want(name) {
            continue;
        }
        let n = pcs.len() as f64;
        println!("addr2line_{}_npcs {}", name, pcs.len());
        let t0 = Instant::now();
        let ok = run(&c, k, &pcs);
        println!("addr2line_{}_cold_pass_ns {:.1}", name, t0.elapsed().as_nanos() as f64 / n);
        for (order, v) in [("random", &pcs), ("seq", &seq)] {
            let mut d = Vec::new();
            for _ in 0..5 {
                let t = Instant::now();
                if run(&c, k, v) != ok {
                    die("answers differ between passes");
                }
                d.push(t.elapsed().as_nanos() as f64 / n);
            }
            println!("addr2line_{}_{}_ns {:.1}", name, order, median(d));
        }
        println!("addr2line_{}_answered {}", name, ok);
    }
}
