//! A list's previous read, reused: each item's validity verdict and the
//! dependencies that decided it, while none of them changed.

use std::cell::RefCell;
use std::sync::Arc;

use super::deps::Dep;
use crate::json::Value;
use crate::schema::Object;

/// The validity of each item of a read's top-level list of references, with
/// the range of the read's dependencies that decided it: a memoized read done
/// again reuses the verdict of the same reference in the previous list while
/// none of those dependencies changed, so a list re-read after one item went,
/// came or moved checks that item only.
#[derive(Debug, Clone)]
pub(crate) struct ListVerdicts {
    /// What holds the list: its items are the references the verdicts are for.
    pub(super) source: ListSource,
    /// Per position, the verdict on its item; `None` when not decided.
    pub(super) verdicts: Vec<Option<Verdict>>,
}

/// Whether one list item was valid, and the dependencies that decided it: the
/// read's dependencies `deps_from..deps_to`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Verdict {
    pub(super) valid: bool,
    pub(super) deps_from: u32,
    pub(super) deps_to: u32,
}

/// What holds a tracked list (kept by the next read to match its items to
/// these, by reference rather than position).
#[derive(Debug, Clone)]
pub(crate) enum ListSource {
    /// A stored result that is the list.
    Result(Arc<Value>),
    /// A collection's row, whose `items` is the list (at the place given:
    /// looked for once, not once per item).
    Row(Arc<Object>, usize),
}

impl ListSource {
    /// The source of a collection's row.
    pub fn row(row: Arc<Object>) -> ListSource {
        let at = row.position("items").unwrap_or(usize::MAX);
        ListSource::Row(row, at)
    }

    pub(super) fn items(&self) -> &[Value] {
        let list = match self {
            ListSource::Result(value) => value.as_array(),
            ListSource::Row(row, at) => row.value_at(*at).and_then(Value::as_array),
        };
        list.map_or(&[], Vec::as_slice)
    }
}

/// What the previous read of a memo entry leaves the next one: its dependencies,
/// which of them changed, and its list's verdicts.
pub(crate) struct Prior {
    pub deps: RefCell<PriorDeps>,
    pub changed: Vec<bool>,
    pub list: ListVerdicts,
}

impl Prior {
    pub fn new(deps: Vec<Dep>, changed: Vec<bool>, list: ListVerdicts) -> Prior {
        let deps = PriorDeps { rest: deps, front: 0, at: 0, run: None };
        Prior { deps: RefCell::new(deps), changed, list }
    }
}

/// The previous read's dependencies, moved (not copied) into the new read's
/// as its items reuse them. Reused ranges mostly follow one another (a list
/// read again after one item changed): they gather into one pending run,
/// moved at once when something else is recorded or the read ends. A range
/// before what was moved already (a repeated reference) is decided anew.
pub(crate) struct PriorDeps {
    /// Those not moved yet, from `front` on (before it: moved out, or passed).
    rest: Vec<Dep>,
    front: usize,
    /// The index, among the previous dependencies, of `rest[front]`.
    at: usize,
    /// A reused range not moved yet.
    run: Option<(usize, usize)>,
}

impl PriorDeps {
    /// Reuses previous dependencies `from..to` (after the new read's last
    /// ones); `false` when they were passed already.
    pub(super) fn reuse(&mut self, from: usize, to: usize, deps: &RefCell<Vec<Dep>>) -> bool {
        match self.run {
            _ if from < self.run.map_or(self.at, |(_, end)| end) || to < from => false,
            Some((start, end)) if end == from => {
                self.run = Some((start, to));
                true
            }
            _ => {
                self.flush(&mut deps.borrow_mut());
                self.run = Some((from, to));
                true
            }
        }
    }

    /// Dependencies reused but not moved yet.
    pub(super) fn pending(&self) -> usize {
        self.run.map_or(0, |(start, end)| end - start)
    }

    /// Moves the pending run to the end of `deps` (the ones skipped before it
    /// are left to drop with the rest), in time linear in what moves: a first
    /// run becomes `deps` in place (what is left copied once), a last run is
    /// appended as one copy, runs between move one by one.
    pub(super) fn flush(&mut self, deps: &mut Vec<Dep>) {
        let Some((start, end)) = self.run.take() else { return };
        self.front = (self.front + (start - self.at)).min(self.rest.len());
        let to = (self.front + (end - start)).min(self.rest.len());
        if deps.is_empty() && self.front == 0 {
            let left = self.rest.split_off(to);
            *deps = std::mem::replace(&mut self.rest, left);
        } else if to == self.rest.len() {
            deps.append(&mut self.rest.split_off(self.front));
            self.rest.clear();
            self.front = 0;
        } else {
            #[allow(clippy::indexing_slicing, reason = "front <= to <= rest.len(): both were clamped above")]
            let run = &mut self.rest[self.front..to];
            deps.extend(run.iter_mut().map(|dep| std::mem::replace(dep, Dep::Void)));
            self.front = to;
        }
        self.at = end;
    }
}
