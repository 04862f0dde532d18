//! Where a builder puts a column's values (and the rows' positions): a vector of its
//! own, or — for a piece of a sheet typed on another core — the piece's place in the
//! vector of the builder it was forked from, so that a large table's values are
//! written once, where they stay.

use std::mem::MaybeUninit;

pub(super) enum Slots<'s, T> {
    Own(Vec<T>),
    /// The piece's part of another vector's spare capacity, `filled` of it written.
    Placed {
        slots: &'s mut [MaybeUninit<T>],
        filled: usize,
    },
    /// Values checked and not kept: nothing is pushed.
    Unkept,
}

impl<T> Default for Slots<'_, T> {
    fn default() -> Self {
        Slots::Own(Vec::new())
    }
}

impl<'s, T> Slots<'s, T> {
    #[inline]
    pub(super) fn push(&mut self, value: T) {
        match self {
            Slots::Own(values) => values.push(value),
            Slots::Placed { slots, filled } => {
                // A piece is given a slot for each of its lines, and a line is at most
                // one row: an index past the end is a bug in the piece's bound.
                slots[*filled].write(value);
                *filled += 1;
            }
            Slots::Unkept => {}
        }
    }

    /// Whether values pushed are kept (not only counted).
    pub(super) fn keeps(&self) -> bool {
        !matches!(self, Slots::Unkept)
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Slots::Own(values) => values.len(),
            Slots::Placed { filled, .. } => *filled,
            Slots::Unkept => 0,
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Room for this many more values without growing.
    pub(super) fn spare(&self) -> usize {
        match self {
            Slots::Own(values) => values.capacity() - values.len(),
            Slots::Placed { slots, filled } => slots.len() - filled,
            Slots::Unkept => usize::MAX,
        }
    }

    pub(super) fn reserve_exact(&mut self, additional: usize) {
        if let Slots::Own(values) = self {
            values.reserve_exact(additional);
        }
    }

    /// The last value, to extend a multi-row record: only a builder of its own has
    /// one, since a table with multi-row fields is never typed in pieces.
    pub(super) fn last_mut(&mut self) -> Option<&mut T> {
        match self {
            Slots::Own(values) => values.last_mut(),
            Slots::Placed { .. } | Slots::Unkept => None,
        }
    }

    /// Fill the piece's slots that no row took with `filler`, so that every slot is
    /// written; returns how many rows the piece has.
    pub(super) fn pad(&mut self, filler: impl Fn() -> T) -> usize {
        match self {
            Slots::Own(values) => values.len(),
            Slots::Placed { slots, filled } => {
                for slot in &mut slots[*filled..] {
                    slot.write(filler());
                }
                *filled
            }
            Slots::Unkept => 0,
        }
    }

    /// The values of a builder of its own (a piece's are in the vector it was placed
    /// in, and it has none).
    pub(super) fn into_vec(self) -> Vec<T> {
        match self {
            Slots::Own(values) => values,
            Slots::Placed { .. } | Slots::Unkept => Vec::new(),
        }
    }

    /// The vector of a builder of its own, to place pieces in.
    pub(super) fn own_mut(&mut self) -> Option<&mut Vec<T>> {
        match self {
            Slots::Own(values) => Some(values),
            Slots::Placed { .. } | Slots::Unkept => None,
        }
    }
}
