//! Parsing `#[entity(...)]` and the serde attributes that change wire names.

use syn::{Attribute, Expr, Lit, LitStr, Meta};

/// `#[entity(...)]` on the struct.
#[derive(Default)]
pub struct ContainerAttrs {
    pub key: Option<String>,
    pub pk: Option<String>,
    pub pk_with: Option<syn::Path>,
    pub process: Option<syn::Path>,
    /// `#[entity(pk_found = "path")]`: the pk given where the object was found.
    pub pk_found: Option<syn::Path>,
    /// `#[entity(process_found = "path")]`: `process` given where the value was found.
    pub process_found: Option<syn::Path>,
    pub validate: Option<syn::Path>,
    pub merge: Option<syn::Path>,
    pub should_update: Option<syn::Path>,
    /// `#[entity(index = "email, slug")]`: unique fields looked up by value.
    pub index: Option<String>,
    pub rename_all: Option<String>,
    /// `#[entity(serde_read)]`: reads go through serde's visitor only.
    pub serde_read: bool,
    /// `#[serde(rename = "...")]` on the struct: the name serde gives it.
    pub rename: Option<String>,
}

/// `#[entity(...)]` on a field.
#[derive(Default)]
pub struct FieldAttrs {
    pub nested: bool,
    pub schema: Option<Expr>,
    /// `#[entity(lazy = "T")]`: stored as `T`'s schema stores it, read as its keys.
    pub lazy: Option<syn::Type>,
    /// `#[entity(scalar = "expr")]`: a lens-dependent field of that `Scalar`.
    pub scalar: Option<Expr>,
    pub rename: Option<String>,
}

fn string_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

pub fn container(attrs: &[Attribute]) -> syn::Result<ContainerAttrs> {
    let mut out = ContainerAttrs::default();
    for attr in attrs {
        if attr.path().is_ident("entity") {
            attr.parse_nested_meta(|meta| {
                let name = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
                match name.as_str() {
                    "key" => out.key = Some(string_value(&meta)?.value()),
                    "pk" => out.pk = Some(string_value(&meta)?.value()),
                    "pk_with" => out.pk_with = Some(string_value(&meta)?.parse()?),
                    "process" => out.process = Some(string_value(&meta)?.parse()?),
                    "validate" => out.validate = Some(string_value(&meta)?.parse()?),
                    "merge" => out.merge = Some(string_value(&meta)?.parse()?),
                    "should_update" => out.should_update = Some(string_value(&meta)?.parse()?),
                    "serde_read" => out.serde_read = true,
                    "index" => out.index = Some(string_value(&meta)?.value()),
                    "pk_found" => out.pk_found = Some(string_value(&meta)?.parse()?),
                    "process_found" => out.process_found = Some(string_value(&meta)?.parse()?),
                    _ => return Err(meta.error(
                        "unknown entity option; expected key, pk, pk_with, pk_found, process, process_found, validate, merge, should_update, index or serde_read",
                    )),
                }
                Ok(())
            })?;
        } else if attr.path().is_ident("serde") {
            out.rename_all = serde_string(attr, "rename_all").or(out.rename_all.take());
            out.rename = serde_string(attr, "rename").or(out.rename.take());
        }
    }
    Ok(out)
}

pub fn field(attrs: &[Attribute]) -> syn::Result<FieldAttrs> {
    let mut out = FieldAttrs::default();
    for attr in attrs {
        if attr.path().is_ident("entity") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("nested") {
                    out.nested = true;
                } else if meta.path.is_ident("schema") {
                    out.schema = Some(string_value(&meta)?.parse()?);
                    out.nested = true;
                } else if meta.path.is_ident("lazy") {
                    out.lazy = Some(string_value(&meta)?.parse()?);
                    out.nested = true;
                } else if meta.path.is_ident("scalar") {
                    out.scalar = Some(string_value(&meta)?.parse()?);
                    out.nested = true;
                } else {
                    return Err(meta.error("unknown field option; expected nested, schema, lazy or scalar"));
                }
                let given = [out.schema.is_some(), out.lazy.is_some(), out.scalar.is_some()];
                if given.into_iter().filter(|&is_given| is_given).count() > 1 {
                    return Err(meta.error("give a field one of `schema`, `lazy` or `scalar`, not two"));
                }
                Ok(())
            })?;
        } else if attr.path().is_ident("serde") {
            out.rename = serde_string(attr, "rename").or(out.rename.take());
        }
    }
    Ok(out)
}

/// Whether any `#[serde(...)]` attribute sets option `name` (`default`, `default = "f"`...).
pub fn serde_has(attrs: &[Attribute], name: &str) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("serde")).any(|attr| {
        let Meta::List(list) = &attr.meta else { return false };
        let Ok(nested) = list.parse_args_with(syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated)
        else {
            return false;
        };
        nested.iter().any(|meta| meta.path().is_ident(name))
    })
}

/// The string value of `#[serde(name = "...")]`, ignoring the other serde options.
fn serde_string(attr: &Attribute, name: &str) -> Option<String> {
    let Meta::List(list) = &attr.meta else { return None };
    let nested = list.parse_args_with(syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated).ok()?;
    nested.iter().find_map(|meta| match meta {
        Meta::NameValue(nv) if nv.path.is_ident(name) => match &nv.value {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Whether the type is spelled `Option<...>`.
pub fn is_option(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Option"),
        _ => false,
    }
}

/// Whether the type is spelled `String`.
pub fn is_string(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p.qself.is_none() && p.path.is_ident("String"),
        _ => false,
    }
}

/// Whether a type is named `Text` (rdc's shared string, or some other type of
/// that name: `TextCheck` tells them apart when the type is known).
pub fn is_text(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => {
            p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Text" && s.arguments.is_none())
        }
        _ => false,
    }
}

/// The `T` of an `Option<T>` type.
pub fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first() {
        Some(syn::GenericArgument::Type(inner)) => Some(inner),
        _ => None,
    }
}

/// Whether an `Option<...>` type holds a `String`.
pub fn option_of_string(ty: &syn::Type) -> bool {
    option_inner(ty).is_some_and(is_string)
}

/// The options of every `#[serde(...)]` attribute; `None` when one does not parse.
fn serde_options(attrs: &[Attribute]) -> Option<Vec<Meta>> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let Meta::List(list) = &attr.meta else { return None };
        let nested =
            list.parse_args_with(syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated).ok()?;
        out.extend(nested);
    }
    Some(out)
}

/// Whether `meta` is `name = "..."`.
fn is_string_option(meta: &Meta, name: &str) -> bool {
    matches!(meta, Meta::NameValue(nv) if nv.path.is_ident(name)
        && matches!(&nv.value, Expr::Lit(syn::ExprLit { lit: Lit::Str(_), .. })))
}

/// Whether the container's serde options are ones a generated reader mirrors
/// (wire names and nothing that changes how the struct is deserialized).
pub fn container_readable(attrs: &[Attribute]) -> bool {
    serde_options(attrs).is_some_and(|options| {
        options
            .iter()
            .all(|meta| ["rename_all", "rename", "crate", "expecting"].iter().any(|n| is_string_option(meta, n)))
    })
}

/// How a field reads when its member is missing.
pub enum Missing {
    /// As serde does: `None` for an `Option`, an error otherwise.
    Serde,
    /// `#[serde(default)]`.
    Default,
    /// `#[serde(default = "path")]`.
    Call(syn::ExprPath),
}

/// What a generated reader does with a missing member of a field with these
/// attributes; `None` when the field has a serde option the reader does not mirror.
pub fn field_missing(attrs: &[Attribute]) -> Option<Missing> {
    let mut missing = Missing::Serde;
    for meta in serde_options(attrs)? {
        match &meta {
            Meta::Path(path) if path.is_ident("default") => missing = Missing::Default,
            Meta::NameValue(nv) if nv.path.is_ident("default") => {
                let Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) = &nv.value else { return None };
                missing = Missing::Call(s.parse().ok()?);
            }
            meta if is_string_option(meta, "rename") => {}
            // Options of serializing only: reads are as without them.
            Meta::Path(path) if path.is_ident("skip_serializing") => {}
            meta if is_string_option(meta, "skip_serializing_if") || is_string_option(meta, "serialize_with") => {}
            _ => return None,
        }
    }
    Some(missing)
}
