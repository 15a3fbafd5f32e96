"""The Rust serialiser: a trait implemented for the standard library's value types;
`__pg::report(site, &value)` writes one JSON line to the report descriptor. An f32 is marked as
one, since Rust compares it with a literal at f32 precision (the literal takes the value's type)."""

SOURCE = r'''
#[allow(dead_code, non_snake_case)]
mod __pg {
    use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
    use std::io::Write;
    use std::os::unix::io::FromRawFd;

    pub trait Enc { fn enc(&self, o: &mut String); }

    fn str_(o: &mut String, s: &str) {
        o.push('"');
        for c in s.chars() {
            match c {
                '"' => o.push_str("\\\""),
                '\\' => o.push_str("\\\\"),
                c if (c as u32) < 0x20 || c as u32 == 0x7f => o.push_str(&format!("\\u{:04x}", c as u32)),
                c => o.push(c),
            }
        }
        o.push('"');
    }
    fn float(o: &mut String, tag: &str, d: f64) {
        if d.is_nan() { o.push_str(&format!("{{\"{}\":\"nan\"}}", tag)); }
        else if d.is_infinite() { o.push_str(&format!("{{\"{}\":\"{}inf\"}}", tag, if d < 0.0 { "-" } else { "" })); }
        else if d == 0.0 && d.is_sign_negative() { o.push_str(&format!("{{\"{}\":\"-0\"}}", tag)); }
        else { o.push_str(&format!("{{\"{}\":{:e}}}", tag, d)); }
    }
    macro_rules! ints { ($($t:ty),*) => { $(impl Enc for $t { fn enc(&self, o: &mut String) { o.push_str(&self.to_string()); } })* } }
    ints!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
    impl Enc for f64 { fn enc(&self, o: &mut String) { float(o, "f", *self); } }
    impl Enc for f32 { fn enc(&self, o: &mut String) { float(o, "f4", *self as f64); } }
    impl Enc for bool { fn enc(&self, o: &mut String) { o.push_str(if *self { "true" } else { "false" }); } }
    impl Enc for char { fn enc(&self, o: &mut String) { o.push_str("{\"c\":"); str_(o, &self.to_string()); o.push('}'); } }
    impl Enc for str { fn enc(&self, o: &mut String) { str_(o, self); } }
    impl Enc for String { fn enc(&self, o: &mut String) { str_(o, self); } }
    impl<T: Enc + ?Sized> Enc for &T { fn enc(&self, o: &mut String) { (**self).enc(o); } }
    impl<T: Enc + ?Sized> Enc for &mut T { fn enc(&self, o: &mut String) { (**self).enc(o); } }
    impl<T: Enc + ?Sized> Enc for Box<T> { fn enc(&self, o: &mut String) { (**self).enc(o); } }
    fn seq<'a, T: Enc + 'a, I: Iterator<Item = &'a T>>(o: &mut String, it: I) {
        o.push('[');
        for (i, x) in it.enumerate() { if i > 0 { o.push(','); } x.enc(o); }
        o.push(']');
    }
    impl<T: Enc> Enc for Vec<T> { fn enc(&self, o: &mut String) { seq(o, self.iter()); } }
    impl<T: Enc> Enc for [T] { fn enc(&self, o: &mut String) { seq(o, self.iter()); } }
    impl<T: Enc, const N: usize> Enc for [T; N] { fn enc(&self, o: &mut String) { seq(o, self.iter()); } }
    impl<T: Enc> Enc for Option<T> {
        fn enc(&self, o: &mut String) {
            match self { Some(x) => { o.push_str("{\"opt\":["); x.enc(o); o.push_str("]}"); } None => o.push_str("{\"opt\":[]}") }
        }
    }
    fn map<'a, K: Enc + 'a, V: Enc + 'a, I: Iterator<Item = (&'a K, &'a V)>>(o: &mut String, it: I) {
        o.push_str("{\"m\":[");
        for (i, (k, v)) in it.enumerate() { if i > 0 { o.push(','); } o.push('['); k.enc(o); o.push(','); v.enc(o); o.push(']'); }
        o.push_str("]}");
    }
    impl<K: Enc, V: Enc, S> Enc for HashMap<K, V, S> { fn enc(&self, o: &mut String) { map(o, self.iter()); } }
    impl<K: Enc, V: Enc> Enc for BTreeMap<K, V> { fn enc(&self, o: &mut String) { map(o, self.iter()); } }
    impl<T: Enc, S> Enc for HashSet<T, S> { fn enc(&self, o: &mut String) { o.push_str("{\"set\":"); seq(o, self.iter()); o.push('}'); } }
    impl<T: Enc> Enc for BTreeSet<T> { fn enc(&self, o: &mut String) { o.push_str("{\"set\":"); seq(o, self.iter()); o.push('}'); } }
    impl Enc for () { fn enc(&self, o: &mut String) { o.push_str("{\"t\":[]}"); } }
    macro_rules! tuples { ($(($($n:tt $t:ident),+)),*) => { $(impl<$($t: Enc),+> Enc for ($($t,)+) {
        fn enc(&self, o: &mut String) { o.push_str("{\"t\":["); let mut _first = true; $( if !_first { o.push(','); } _first = false; self.$n.enc(o); )+ o.push_str("]}"); }
    })* } }
    tuples!((0 A), (0 A, 1 B), (0 A, 1 B, 2 C), (0 A, 1 B, 2 C, 3 D), (0 A, 1 B, 2 C, 3 D, 4 E));

    fn put(line: &str) {
        let mut f = unsafe { std::fs::File::from_raw_fd(FD) };
        let ok = f.write_all(line.as_bytes()).is_ok();
        std::mem::forget(f);
        if !ok { std::process::exit(125); }
    }
    pub fn report<T: Enc + ?Sized>(site: usize, value: &T) {
        let mut o = format!("{{\"s\":{},\"v\":", site);
        value.enc(&mut o);
        o.push_str("}\n");
        put(&o);
    }
    pub fn end(n: usize) { put(&format!("{{\"end\":{}}}\n", n)); }
}
'''
