//! Identity by address: a `&'static` value told apart from others by where it
//! lives, not by what it holds.

/// A `&'static` value compared, ordered and hashed by its address (and, for a
/// `str`, its length). Every row of an entity type holds its table key from
/// the one [`EntityDef`](crate::EntityDef), so one comparison of two words
/// tells tables apart where comparing text would scan it. Two keys with the
/// same text at different addresses are different here: code that must treat
/// them as one (a store lookup) goes by the text.
///
/// ```
/// use rdc_core::ByAddress;
/// static USER: &str = "User";
/// let copy: &'static str = Box::leak(String::from("User").into_boxed_str());
/// assert_eq!(ByAddress(USER), ByAddress(USER));
/// assert_ne!(ByAddress(USER), ByAddress(copy));
/// ```
#[derive(Debug)]
pub struct ByAddress<T: ?Sized + 'static>(pub &'static T);

impl<T: ?Sized> ByAddress<T> {
    /// The address of the value.
    pub fn address(self) -> usize {
        (self.0 as *const T).cast::<()>() as usize
    }
}

impl<T: ?Sized> Clone for ByAddress<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for ByAddress<T> {}

impl<T: ?Sized> PartialEq for ByAddress<T> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl<T: ?Sized> Eq for ByAddress<T> {}

impl<T: ?Sized> std::hash::Hash for ByAddress<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.address().hash(state);
    }
}

impl<T: ?Sized> PartialOrd for ByAddress<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// By address, then by size (a `str`'s length): consistent with `==` for
/// sized values and `str`.
impl<T: ?Sized> Ord for ByAddress<T> {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let size = |v: &Self| std::mem::size_of_val(v.0);
        self.address().cmp(&other.address()).then_with(|| size(self).cmp(&size(other)))
    }
}
