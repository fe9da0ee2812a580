//! `Map`: a JSON object as a vector of entries in their order (objects in API
//! responses are small, so a scan beats hashing or a tree, and costs one
//! allocation instead of one per node).

use std::fmt;

use super::{Text, Value};

/// A JSON object: keys in insertion order, each once.
///
/// ```
/// use rdc_core::json::{Map, Value};
/// let mut user = Map::new();
/// user.insert("id", Value::from(1));
/// user.insert("name", Value::from("Ada"));
/// assert_eq!(user.get("name").and_then(Value::as_str), Some("Ada"));
/// assert_eq!(user.keys().map(|k| k.as_str()).collect::<Vec<_>>(), ["id", "name"]);
/// ```
#[derive(Clone, Default)]
pub struct Map {
    entries: Vec<(Text, Value)>,
}

impl Map {
    /// An empty object.
    ///
    /// ```
    /// assert!(rdc_core::json::Map::new().is_empty());
    /// ```
    pub fn new() -> Map {
        Map::default()
    }

    /// An empty object with room for `n` keys.
    ///
    /// ```
    /// assert_eq!(rdc_core::json::Map::with_capacity(4).len(), 0);
    /// ```
    pub fn with_capacity(n: usize) -> Map {
        Map { entries: Vec::with_capacity(n) }
    }

    /// Entries taken as they are: the caller knows each key is there once.
    #[doc(hidden)]
    pub fn from_unique(entries: Vec<(Text, Value)>) -> Map {
        Map { entries }
    }

    /// Where `key` is among the entries.
    #[doc(hidden)]
    pub fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| k.as_str() == key)
    }

    /// The value of the entry at `at` (see [`Map::position`]).
    #[doc(hidden)]
    pub fn value_at(&self, at: usize) -> Option<&Value> {
        self.entries.get(at).map(|(_, v)| v)
    }

    /// The value under `key`.
    ///
    /// ```
    /// let m: rdc_core::json::Map = [("a", rdc_core::json!(1))].into_iter().collect();
    /// assert_eq!(m.get("a"), Some(&rdc_core::json!(1)));
    /// assert_eq!(m.get("b"), None);
    /// ```
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    }

    /// The value under `key`, to change.
    ///
    /// ```
    /// let mut m: rdc_core::json::Map = [("a", rdc_core::json!(1))].into_iter().collect();
    /// *m.get_mut("a").unwrap() = rdc_core::json!(2);
    /// assert_eq!(m["a"], 2);
    /// ```
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.entries.iter_mut().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    }

    /// Whether `key` is there.
    ///
    /// ```
    /// let m: rdc_core::json::Map = [("a", rdc_core::json!(null))].into_iter().collect();
    /// assert!(m.contains_key("a"));
    /// ```
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key` (in place when it is there, else at the end); returns the value it replaced.
    ///
    /// ```
    /// let mut m = rdc_core::json::Map::new();
    /// assert_eq!(m.insert("a", rdc_core::json!(1)), None);
    /// assert_eq!(m.insert("a", rdc_core::json!(2)), Some(rdc_core::json!(1)));
    /// ```
    pub fn insert(&mut self, key: impl Into<Text>, value: Value) -> Option<Value> {
        self.insert_text(key.into(), value)
    }

    /// [`Map::insert`] once for every key type.
    fn insert_text(&mut self, key: Text, value: Value) -> Option<Value> {
        match self.position(&key) {
            Some(at) => self.entries.get_mut(at).map(|(_, v)| std::mem::replace(v, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Takes `key` out, keeping the others' order.
    ///
    /// ```
    /// let mut m: rdc_core::json::Map = [("a", rdc_core::json!(1))].into_iter().collect();
    /// assert_eq!(m.remove("a"), Some(rdc_core::json!(1)));
    /// assert!(m.is_empty());
    /// ```
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let at = self.position(key)?;
        Some(self.entries.remove(at).1)
    }

    /// Room for keys without reallocating.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// Takes `key` out with its place and key (see [`Map::insert_at`]).
    #[doc(hidden)]
    pub fn take_entry(&mut self, key: &str) -> Option<(usize, Text, Value)> {
        let at = self.position(key)?;
        let (k, v) = self.entries.remove(at);
        Some((at, k, v))
    }

    /// Puts back what [`Map::take_entry`] took, at its place.
    #[doc(hidden)]
    pub fn insert_at(&mut self, at: usize, key: Text, value: Value) {
        self.entries.insert(at.min(self.entries.len()), (key, value));
    }

    /// Number of keys.
    ///
    /// ```
    /// assert_eq!(rdc_core::json!({"a": 1, "b": 2}).as_object().unwrap().len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no keys.
    ///
    /// ```
    /// assert!(rdc_core::json!({}).as_object().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries in order.
    ///
    /// ```
    /// let v = rdc_core::json!({"a": 1});
    /// let pairs: Vec<(&str, u64)> = v.as_object().unwrap().iter().map(|(k, v)| (k.as_str(), v.as_u64().unwrap())).collect();
    /// assert_eq!(pairs, [("a", 1)]);
    /// ```
    pub fn iter(&self) -> Iter<'_> {
        self.into_iter()
    }

    /// Keys in order.
    ///
    /// ```
    /// let v = rdc_core::json!({"a": 1, "b": 2});
    /// assert_eq!(v.as_object().unwrap().keys().map(|k| k.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &Text> + DoubleEndedIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// Values in order.
    ///
    /// ```
    /// let v = rdc_core::json!({"a": 1});
    /// assert_eq!(v.as_object().unwrap().values().next(), Some(&rdc_core::json!(1)));
    /// ```
    pub fn values(&self) -> impl ExactSizeIterator<Item = &Value> + DoubleEndedIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    /// Entries sorted by key: the canonical order of cache keys and query
    /// strings, so objects equal but for their key order read the same.
    ///
    /// ```
    /// let v = rdc_core::json!({"b": 2, "a": 1});
    /// let keys: Vec<&str> = v.as_object().unwrap().sorted().iter().map(|(k, _)| k.as_str()).collect();
    /// assert_eq!(keys, ["a", "b"]);
    /// ```
    #[allow(clippy::indexing_slicing, reason = "each place comes from enumerating these entries")]
    pub fn sorted(&self) -> Vec<(&Text, &Value)> {
        // Sorted as (key, place) pairs: keys are unique, so places never decide
        // (one sort instance over plain tuples, no comparison closure).
        let mut places: Vec<(&str, usize)> =
            self.entries.iter().enumerate().map(|(i, (k, _))| (k.as_str(), i)).collect();
        crate::sort::sort(&mut places);
        places.into_iter().map(|(_, i)| (&self.entries[i].0, &self.entries[i].1)).collect()
    }

    /// Keeps, of keys met more than once, the last value at the first place
    /// (linear: a hash of the keys above a few entries).
    pub(crate) fn dedup_keys(&mut self) {
        let first = self.first_places();
        if first.iter().enumerate().all(|(i, &f)| f == i) {
            return;
        }
        // Later values move to their key's first place (the last one stays).
        for (i, &f) in first.iter().enumerate() {
            if f != i {
                let value = self.entries.get_mut(i).map(|(_, v)| v.take());
                if let (Some(value), Some(slot)) = (value, self.entries.get_mut(f)) {
                    slot.1 = value;
                }
            }
        }
        let mut i = 0;
        self.entries.retain(|_| {
            let keep = first.get(i) == Some(&i);
            i += 1;
            keep
        });
    }

    /// Whether every entry of `other` is here with an equal value (`other`
    /// laid over this map would change nothing). Linear: keys in the same
    /// places are compared in step (a row written again), the others looked
    /// up by scanning while either map is small, else through a hash.
    ///
    /// ```
    /// let row = rdc_core::json!({"id": 1, "name": "Ada", "age": 36});
    /// let row = row.as_object().unwrap();
    /// assert!(row.includes(rdc_core::json!({"name": "Ada", "id": 1}).as_object().unwrap()));
    /// assert!(!row.includes(rdc_core::json!({"name": "Bea"}).as_object().unwrap()));
    /// assert!(!row.includes(rdc_core::json!({"nick": null}).as_object().unwrap()));
    /// ```
    pub fn includes(&self, other: &Map) -> bool {
        let in_step = self.entries.iter().zip(&other.entries).take_while(|((ka, _), (kb, _))| ka == kb);
        let mut matched = 0;
        for ((_, va), (_, vb)) in in_step {
            if va != vb {
                return false;
            }
            matched += 1;
        }
        #[allow(clippy::indexing_slicing, reason = "`matched` counts entries of `other`")]
        let rest = &other.entries[matched..];
        if rest.len() <= SMALL || self.len() <= SMALL {
            return rest.iter().all(|(k, v)| self.get(k) == Some(v));
        }
        let index: crate::FastMap<&str, &Value> = self.iter().map(|(k, v)| (k.as_str(), v)).collect();
        rest.iter().all(|(k, v)| index.get(k.as_str()) == Some(&v))
    }

    /// This map with `other`'s entries laid over it: each key of `other` takes
    /// its value there, in place when this map has it, else at the end (what
    /// inserting each entry in turn gives, in linear time: keys in the same
    /// places are replaced in step, the others as [`Extend`] adds them).
    ///
    /// ```
    /// let stored = rdc_core::json!({"id": 1, "name": "Ada"});
    /// let incoming = rdc_core::json!({"name": "Ada L.", "age": 36});
    /// let merged = stored.as_object().unwrap().overlaid(incoming.as_object().unwrap());
    /// assert_eq!(rdc_core::json::Value::Object(merged), rdc_core::json!({"id": 1, "name": "Ada L.", "age": 36}));
    /// ```
    pub fn overlaid(&self, other: &Map) -> Map {
        let mut merged = self.clone();
        let mut matched = 0;
        for ((k, v), (ko, vo)) in merged.entries.iter_mut().zip(&other.entries) {
            if k != ko {
                break;
            }
            *v = vo.clone();
            matched += 1;
        }
        #[allow(clippy::indexing_slicing, reason = "`matched` counts entries of `other`")]
        let rest = &other.entries[matched..];
        merged.extend(rest.iter().map(|(k, v)| (k.clone(), v.clone())));
        merged
    }

    /// For each entry, the index of the first entry with its key.
    fn first_places(&self) -> Vec<usize> {
        let mut first: Vec<usize> = (0..self.entries.len()).collect();
        if self.entries.len() <= SMALL {
            for (i, (key, _)) in self.entries.iter().enumerate() {
                let earlier = self.entries.get(..i).and_then(|e| e.iter().position(|(k, _)| k == key));
                if let (Some(at), Some(slot)) = (earlier, first.get_mut(i)) {
                    *slot = at;
                }
            }
        } else {
            let mut seen: crate::FastMap<&str, usize> = crate::FastMap::default();
            for (i, (key, _)) in self.entries.iter().enumerate() {
                let at = *seen.entry(key.as_str()).or_insert(i);
                if let Some(slot) = first.get_mut(i) {
                    *slot = at;
                }
            }
        }
        first
    }
}

/// Up to this many entries a scan beats hashing.
const SMALL: usize = 16;

impl PartialEq for Map {
    /// Same keys with equal values, in any order (as JSON objects compare).
    fn eq(&self, other: &Map) -> bool {
        if self.len() != other.len() {
            return false;
        }
        if self.entries.iter().zip(&other.entries).all(|((ka, va), (kb, vb))| ka == kb && va == vb) {
            return true;
        }
        if self.len() <= SMALL {
            return self.entries.iter().all(|(k, v)| other.get(k) == Some(v));
        }
        let theirs: crate::FastMap<&str, &Value> = other.iter().map(|(k, v)| (k.as_str(), v)).collect();
        self.entries.iter().all(|(k, v)| theirs.get(k.as_str()) == Some(&v))
    }
}

impl Eq for Map {}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Into<Text>> FromIterator<(K, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Map {
        let mut map = Map::new();
        map.extend(iter);
        map
    }
}

impl<K: Into<Text>> Extend<(K, Value)> for Map {
    /// Like inserting each in turn (a key met again takes the later value at
    /// its first place), in linear time: inserted one by one while the map is
    /// small (no allocation: an entity met again in a response merges so),
    /// the rest appended and deduplicated at once.
    fn extend<I: IntoIterator<Item = (K, Value)>>(&mut self, iter: I) {
        let mut iter = iter.into_iter();
        while self.entries.len() < SMALL {
            let Some((k, v)) = iter.next() else { return };
            self.insert_text(k.into(), v);
        }
        let before = self.entries.len();
        self.entries.extend(iter.map(|(k, v)| (k.into(), v)));
        if self.entries.len() > before {
            self.dedup_keys();
        }
    }
}

impl IntoIterator for Map {
    type Item = (Text, Value);
    type IntoIter = std::vec::IntoIter<(Text, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// The entries of a [`Map`], in order.
///
/// ```
/// let v = rdc_core::json!({"a": 1, "b": 2});
/// let iter: rdc_core::json::Iter<'_> = v.as_object().unwrap().iter();
/// assert_eq!(iter.len(), 2);
/// ```
#[derive(Debug, Clone)]
pub struct Iter<'a>(std::slice::Iter<'a, (Text, Value)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Text, &'a Value);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a Text, &'a Value);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        Iter(self.entries.iter())
    }
}

#[cfg(test)]
mod tests;
