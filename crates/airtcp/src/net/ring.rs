//! A FIFO of `Copy` items in a power-of-two ring, the one a link keeps its admitted packets, its
//! packets in flight and its ARQ attempts in (`net::link`), and a TCP sender its scoreboard.

/// A FIFO of `Copy` items in a power-of-two ring: `VecDeque`'s operations that the link uses, with
/// a mask instead of `VecDeque`'s wrap-around arithmetic and capacity checks on the hot path (a
/// link pushes and pops each of its packets twice: admitted, then in flight).
///
/// Its invariant: `buf.len()` is 0 or a power of two, `len <= buf.len()`, and `head < buf.len()`
/// whenever `buf` is not empty. A slot index is then in bounds by construction — `head` when
/// `len > 0`, or any value masked with `buf.len() - 1` when `buf` is not empty — so the hot
/// operations index without a bounds check ([`Ring::slot`]), the bound checked by a debug
/// assertion in the test profile (`ring_matches_vecdeque` drives every operation).
#[derive(Debug, Clone)]
pub(crate) struct Ring<T: Copy> {
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy + Default> Default for Ring<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default> Ring<T> {
    /// An empty ring (allocates on the first push).
    pub(crate) fn new() -> Self {
        Ring { buf: Vec::new(), head: 0, len: 0 }
    }

    /// Number of items.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether the ring is empty.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Slots in the buffer.
    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Whether the next [`Ring::push_back`] grows the buffer.
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.len == self.buf.len()
    }

    /// The slot at `i`, which the caller has masked or checked as the invariant says (see
    /// [`Ring`]).
    #[inline(always)]
    fn slot(&self, i: usize) -> &T {
        debug_assert!(i < self.buf.len(), "ring slot {i} of {}", self.buf.len());
        // SAFETY: `i < buf.len()` by the ring's invariant (the caller's mask or check).
        unsafe { self.buf.get_unchecked(i) }
    }

    /// The oldest item.
    #[inline]
    pub(crate) fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| self.slot(self.head))
    }

    /// The `i`-th oldest item.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| self.slot((self.head + i) & (self.buf.len() - 1)))
    }

    /// The `i`-th oldest item, to change.
    #[inline]
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i < self.len {
            let j = (self.head + i) & (self.buf.len() - 1);
            debug_assert!(j < self.buf.len());
            // SAFETY: masked with `buf.len() - 1`, and `buf` is not empty (`i < len`).
            Some(unsafe { self.buf.get_unchecked_mut(j) })
        } else {
            None
        }
    }

    /// Appends an item, doubling the buffer when full.
    #[inline]
    pub(crate) fn push_back(&mut self, x: T) {
        if self.len == self.buf.len() {
            // The growth takes no item (it pads with `T::default()`), so that `x` is written
            // straight into its slot: handing it to `grow` made the compiler build it on the stack
            // and copy it (9 instructions per admitted packet on Fig. 10, BENCHMARKS.md).
            self.grow();
        }
        // SAFETY: not full (grown above when it was).
        unsafe { self.push_back_with_room(x) }
    }

    /// [`Ring::push_back`] into a ring the caller has made room in, without checking again.
    ///
    /// # Safety
    /// `!self.is_full()`: then the buffer is not empty and the masked slot is in bounds.
    #[inline]
    pub(crate) unsafe fn push_back_with_room(&mut self, x: T) {
        debug_assert!(!self.is_full(), "push_back_with_room into a full ring");
        let i = (self.head + self.len) & (self.buf.len() - 1);
        // SAFETY: `len < buf.len()` (the caller's), so `buf` is not empty and `i` is masked into it.
        unsafe { *self.buf.get_unchecked_mut(i) = x };
        self.len += 1;
    }

    /// Removes every item (the buffer stays). The next items go from the first slot on, warm in
    /// the cache where the ring is cleared often (issue 42: a ring that only ever held a few
    /// items at a time had cycled its writes through its whole buffer).
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.head = 0;
    }

    /// Removes and returns the oldest item.
    #[inline]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let x = *self.slot(self.head);
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
        Some(x)
    }

    /// Removes the `n` oldest items (at most all of them) without reading them.
    #[inline]
    pub(crate) fn drop_front(&mut self, n: usize) {
        let n = n.min(self.len);
        if n > 0 {
            self.head = (self.head + n) & (self.buf.len() - 1);
            self.len -= n;
        }
    }

    /// The number of leading items for which `pred` holds, where it holds for a prefix of the
    /// items (as [`slice::partition_point`]): a binary search, which reads about log₂(len) of
    /// them instead of the whole prefix.
    #[inline]
    pub(crate) fn partition_point(&self, mut pred: impl FnMut(&T) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            // SAFETY (of `slot`): `mid < len`, masked with `buf.len() - 1` (see `Ring`).
            if pred(self.slot((self.head + mid) & (self.buf.len() - 1))) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// [`Ring::partition_point`] started at `guess` instead of the middle: it reads `guess` and
    /// its neighbours, then steps away from it 1, 2, 4, ... items until it brackets the answer,
    /// and searches the bracket. An answer within one of `guess` takes two or three reads, whose
    /// branches go the same way sample after sample, where a binary search of a few dozen items
    /// takes five or six the predictor cannot guess (issue 42: the link's readers at each sample,
    /// whose counts change little from one sample to the next). Any `guess` gives the same answer.
    #[inline]
    pub(crate) fn partition_point_near(&self, guess: usize, mut pred: impl FnMut(&T) -> bool) -> usize {
        let n = self.len;
        // SAFETY (of `slot`, here and below): every index read is `< len`, masked with
        // `buf.len() - 1` (see `Ring`).
        let mut at = |i: usize| pred(self.slot((self.head + i) & (self.buf.len().wrapping_sub(1))));
        let g = guess.min(n);
        // The answer lies in [lo, hi]: the predicate holds before `lo` and not from `hi` on.
        let (mut lo, mut hi);
        if g < n && at(g) {
            // Forward: it holds at g, so the answer is past it.
            lo = g + 1;
            let mut step = 1;
            loop {
                let i = lo + step - 1;
                if i >= n {
                    hi = n;
                    break;
                }
                if at(i) {
                    lo = i + 1;
                    step *= 2;
                } else {
                    hi = i;
                    break;
                }
            }
        } else {
            // Backward: it does not hold at g (or g is the end), so the answer is at most g.
            hi = g;
            let mut step = 1;
            loop {
                if hi < step {
                    lo = 0;
                    break;
                }
                let i = hi - step;
                if at(i) {
                    lo = i + 1;
                    break;
                }
                hi = i;
                step *= 2;
            }
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if at(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The items, oldest first (from either end).
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator + '_ {
        let mask = self.buf.len().wrapping_sub(1);
        (0..self.len).map(move |i| &self.buf[(self.head + i) & mask])
    }

    /// Doubles the buffer (at least 8 slots), keeping the items in order.
    #[cold]
    #[inline(never)]
    pub(crate) fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(8);
        let mut buf = Vec::with_capacity(cap);
        buf.extend(self.iter().copied());
        buf.resize(cap, T::default());
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;
    use std::collections::VecDeque;

    proptest::proptest! {
        /// Against `VecDeque`: the same pushes, pops and clears give the same items, lengths and
        /// order.
        #[test]
        fn ring_matches_vecdeque(ops in proptest::collection::vec(proptest::option::of(0u32..1000), 0..300)) {
            let (mut r, mut d) = (Ring::new(), VecDeque::new());
            for op in ops {
                match op {
                    // One value in 100 clears (a link forgetting an idle transmitter's entries).
                    Some(x) if x % 100 == 99 => { r.clear(); d.clear(); }
                    // One in 100 drops up to 3 from the front, unread (a purge).
                    Some(x) if x % 100 == 98 => {
                        let n = (x / 100 % 4) as usize;
                        r.drop_front(n);
                        d.drain(..n.min(d.len()));
                    }
                    Some(x) => { r.push_back(x); d.push_back(x); }
                    None => proptest::prop_assert_eq!(r.pop_front(), d.pop_front()),
                }
                proptest::prop_assert_eq!(r.len(), d.len());
                proptest::prop_assert_eq!(r.front(), d.front());
                proptest::prop_assert!(r.iter().eq(d.iter()));
                proptest::prop_assert!(r.iter().rev().eq(d.iter().rev()));
                for i in 0..=d.len() {
                    proptest::prop_assert_eq!(r.get_mut(i).map(|x| *x), d.get(i).copied());
                }
            }
        }

        /// `partition_point` finds where a predicate that holds on a prefix stops holding, as a
        /// scan from the front does, on rings that have wrapped around; so does
        /// `partition_point_near` whatever its guess (before, at, after the answer, past the end),
        /// and on an empty ring.
        #[test]
        fn partition_points_match_a_scan(pushes in 0usize..70, pops in 0usize..70, cut in 0u32..90, guess in 0usize..90) {
            let mut r = Ring::new();
            for x in 0..pushes as u32 {
                r.push_back(x);
            }
            for _ in 0..pops.min(pushes) {
                r.pop_front();
            }
            for x in pushes as u32..pushes as u32 + 7 {
                r.push_back(x);
            }
            let scan = r.iter().take_while(|&&x| x < cut).count();
            proptest::prop_assert_eq!(r.partition_point(|&x| x < cut), scan);
            proptest::prop_assert_eq!(r.partition_point_near(guess, |&x| x < cut), scan);
            proptest::prop_assert_eq!(Ring::<u32>::new().partition_point_near(guess, |&x| x < cut), 0);
        }
    }
}
