//! A reader that turns fuzz bytes into choices and never fails.
//!
//! Past the end of the data every read returns zero, so every byte string (the empty one too) is a
//! valid input and a mutation anywhere changes only the choices from that byte on. Small choices
//! take one byte, which keeps libFuzzer's byte-level mutations close to one choice each (the
//! "structure-aware fuzzing without a grammar" approach of the libFuzzer docs,
//! <https://llvm.org/docs/LibFuzzer.html#fuzzer-friendly-build-mode>, and of `arbitrary`'s
//! `Unstructured`, <https://docs.rs/arbitrary>).

/// A cursor over fuzz bytes.
#[derive(Debug, Clone)]
pub struct Input<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    /// Reads `data` from its start.
    pub fn new(data: &'a [u8]) -> Self {
        Input { data, pos: 0 }
    }

    /// Whether every byte has been read (further reads return zeros).
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// The next byte, or 0 past the end.
    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// One byte's lowest bit.
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// Two bytes, little-endian.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// Four bytes, little-endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// Eight bytes, little-endian.
    pub fn u64(&mut self) -> u64 {
        (self.u32() as u64) | (self.u32() as u64) << 32
    }

    /// A number in `0..n` (0 when `n` is 0), from as few bytes as `n` needs (1, 2, 4 or 8).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let x = if n <= 1 << 8 {
            self.u8() as u64
        } else if n <= 1 << 16 {
            self.u16() as u64
        } else if n <= 1 << 32 {
            self.u32() as u64
        } else {
            self.u64()
        };
        x % n
    }

    /// One of `xs` (which must not be empty).
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_then_zeros() {
        let mut i = Input::new(&[1, 2, 3]);
        assert_eq!(i.u16(), 0x0201);
        assert!(!i.is_empty());
        assert_eq!(i.u16(), 3);
        assert!(i.is_empty());
        assert_eq!(i.u64(), 0);
        assert_eq!(i.below(7), 0);
    }

    #[test]
    fn below_uses_as_few_bytes_as_needed() {
        let mut i = Input::new(&[200, 1, 1]);
        assert_eq!(i.below(256), 200);
        assert_eq!(i.below(300), 257); // two bytes, 0x0101
        assert_eq!(i.below(0), 0);
    }
}
