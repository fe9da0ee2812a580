//! `json!`: a `Value` written as JSON, with Rust expressions inside.

/// Builds a [`Value`](crate::Value) with `serde_json::json!`'s syntax: `null`, booleans,
/// `[...]`, `{"key": value, ...}` (keys are string literals, `(expressions)` or
/// variables), and any other expression through its `Serialize` (panicking, as
/// `serde_json::json!` does, when that fails: a map with keys that are not strings).
///
/// ```
/// use rdc_core::json;
/// let id = 7;
/// let key = "role";
/// let user = json!({"id": id, "tags": ["a", "b", null], "boss": null, (key): {"admin": true}, "n": -1.5,});
/// assert_eq!(user["id"], 7);
/// assert_eq!(user["tags"][2], json!(null));
/// assert_eq!(user["role"]["admin"], true);
/// assert_eq!(user.to_string(), r#"{"id":7,"tags":["a","b",null],"boss":null,"role":{"admin":true},"n":-1.5}"#);
/// ```
#[macro_export]
macro_rules! json {
    (null) => { $crate::Value::Null };
    ([]) => { $crate::Value::Array(::std::vec::Vec::new()) };
    ([ $($items:tt)+ ]) => { $crate::Value::Array($crate::__json_items!([] $($items)+)) };
    ({}) => { $crate::Value::Object($crate::Map::new()) };
    ({ $($entries:tt)+ }) => {
        $crate::Value::Object({
            let mut map = $crate::Map::new();
            $crate::__json_entries!(map () $($entries)+);
            map
        })
    };
    ($other:expr) => { $crate::__to_value_or_panic(&$other) };
}

/// The items of `json!([...])`, one at a time (an item is `null`, a list, an
/// object or an expression up to the next top-level comma).
#[doc(hidden)]
#[macro_export]
macro_rules! __json_items {
    ([$($done:expr,)*]) => { ::std::vec![$($done,)*] };
    ([$($done:expr,)*] null $(, $($rest:tt)*)?) => {
        $crate::__json_items!([$($done,)* $crate::Value::Null,] $($($rest)*)?)
    };
    ([$($done:expr,)*] [$($list:tt)*] $(, $($rest:tt)*)?) => {
        $crate::__json_items!([$($done,)* $crate::json!([$($list)*]),] $($($rest)*)?)
    };
    ([$($done:expr,)*] {$($object:tt)*} $(, $($rest:tt)*)?) => {
        $crate::__json_items!([$($done,)* $crate::json!({$($object)*}),] $($($rest)*)?)
    };
    ([$($done:expr,)*] $next:expr, $($rest:tt)*) => {
        $crate::__json_items!([$($done,)* $crate::json!($next),] $($rest)*)
    };
    ([$($done:expr,)*] $last:expr) => { $crate::__json_items!([$($done,)* $crate::json!($last),]) };
}

/// The entries of `json!({...})`, inserted into `$map` one at a time: a key
/// (string literal, `(expression)` or variable) and `:`, then its value.
#[doc(hidden)]
#[macro_export]
macro_rules! __json_entries {
    ($map:ident ()) => {};
    ($map:ident () $key:literal : $($rest:tt)+) => {
        $crate::__json_entries!($map ($crate::__literal_key($key)) $($rest)+)
    };
    ($map:ident () ($key:expr) : $($rest:tt)+) => { $crate::__json_entries!($map ($key) $($rest)+) };
    ($map:ident () $key:ident : $($rest:tt)+) => { $crate::__json_entries!($map ($key) $($rest)+) };
    ($map:ident ($key:expr) null $(, $($rest:tt)*)?) => {
        $map.insert($key, $crate::Value::Null);
        $crate::__json_entries!($map () $($($rest)*)?);
    };
    ($map:ident ($key:expr) [$($list:tt)*] $(, $($rest:tt)*)?) => {
        $map.insert($key, $crate::json!([$($list)*]));
        $crate::__json_entries!($map () $($($rest)*)?);
    };
    ($map:ident ($key:expr) {$($object:tt)*} $(, $($rest:tt)*)?) => {
        $map.insert($key, $crate::json!({$($object)*}));
        $crate::__json_entries!($map () $($($rest)*)?);
    };
    ($map:ident ($key:expr) $value:expr, $($rest:tt)*) => {
        $map.insert($key, $crate::json!($value));
        $crate::__json_entries!($map () $($rest)*);
    };
    ($map:ident ($key:expr) $value:expr) => {
        $map.insert($key, $crate::json!($value));
    };
}
