//! The code `#[derive(Entity)]` generates.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

use crate::attrs::{self, is_option};
use crate::case::rename;

/// Path of rdc-core as the user's crate sees it: `::rdc_core`, or `::rdc::core`
/// through the facade.
fn core_path() -> TokenStream {
    crate::endpoint::crate_path("rdc-core", "core")
}

struct Field {
    ident: syn::Ident,
    ty: syn::Type,
    wire: String,
    nested: bool,
    schema: Option<syn::Expr>,
    /// `lazy = "T"`: the type whose keys the field holds.
    lazy: Option<syn::Type>,
    scalar: Option<syn::Expr>,
    serde_attrs: Vec<syn::Attribute>,
    /// How the generated reader fills the field when its member is missing;
    /// `None` when a serde option on it is one the reader does not mirror.
    missing: Option<attrs::Missing>,
}

/// The struct's serde-relevant container options and its fields, for the
/// derive named `derive` (in error messages).
fn parse(input: &DeriveInput, derive: &str) -> syn::Result<(attrs::ContainerAttrs, Vec<Field>)> {
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            format!("#[derive({derive})] does not support generic types"),
        ));
    }
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(name, format!("#[derive({derive})] needs a struct with named fields")));
    };
    let Fields::Named(named) = &data.fields else {
        return Err(syn::Error::new_spanned(name, format!("#[derive({derive})] needs a struct with named fields")));
    };
    let container = attrs::container(&input.attrs)?;
    let mut fields = Vec::new();
    for f in &named.named {
        let Some(ident) = f.ident.clone() else { continue };
        let field_attrs = attrs::field(&f.attrs)?;
        let raw = ident.to_string();
        let raw = raw.strip_prefix("r#").unwrap_or(&raw).to_owned();
        let wire = match field_attrs.rename {
            Some(wire) => wire,
            None => {
                rename(&raw, container.rename_all.as_deref()).map_err(|e| syn::Error::new_spanned(&input.ident, e))?
            }
        };
        let serde_attrs = f.attrs.iter().filter(|a| a.path().is_ident("serde")).cloned().collect();
        let missing = attrs::field_missing(&f.attrs);
        fields.push(Field {
            ident,
            ty: f.ty.clone(),
            wire,
            nested: field_attrs.nested,
            schema: field_attrs.schema,
            lazy: field_attrs.lazy,
            scalar: field_attrs.scalar,
            serde_attrs,
            missing,
        });
    }
    Ok((container, fields))
}

/// The generated reader of the struct, when it can mirror serde's derive
/// (see `reader`), and the expression of its type-erased `Reader`.
fn readable(
    input: &DeriveInput,
    container: &attrs::ContainerAttrs,
    fields: &[Field],
    core: &TokenStream,
) -> Option<TokenStream> {
    // serde gives a wire name to the first field that has it; the reader
    // leaves such structs to serde rather than mirror that.
    let unique = fields.iter().enumerate().all(|(i, f)| fields.iter().skip(i + 1).all(|g| g.wire != f.wire));
    let serde_name = container.rename.clone().unwrap_or_else(|| input.ident.to_string());
    (!container.serde_read
        && unique
        && attrs::container_readable(&input.attrs)
        && fields.iter().all(|f| f.missing.is_some()))
    .then(|| reader(core, &input.ident, &serde_name, fields))
}

/// The schema of a nested field: its `scalar = "..."`'s field, its
/// `schema = "..."`, a `Lazy` of its `lazy = "T"`, or its type's.
fn nested_schema(f: &Field, core: &TokenStream) -> TokenStream {
    let ty = &f.ty;
    let wire = &f.wire;
    match (&f.scalar, &f.schema, &f.lazy) {
        (Some(scalar), _, _) => {
            // Errors (an expression that is no `Scalar`) point at the attribute.
            let span = syn::spanned::Spanned::span(scalar);
            quote::quote_spanned!(span=> #core::Scalar::field::<#ty>(&(#scalar), #wire))
        }
        (None, Some(expr), _) => quote!(::std::convert::Into::<#core::Schema>::into(#expr)),
        (None, None, Some(lazy)) => quote!(::std::convert::Into::<#core::Schema>::into(#core::Lazy::<#lazy>::of())),
        (None, None, None) => quote!(<#ty as #core::HasSchema>::schema()),
    }
}

/// For each `lazy = "T"` field, a compile-time check that its type (inside
/// an `Option`) holds the keys of `T`.
fn lazy_checks(fields: &[Field], name: &syn::Ident, core: &TokenStream) -> TokenStream {
    let checks = fields.iter().filter_map(|f| {
        let lazy = f.lazy.as_ref()?;
        // An optional field holds the keys of the lazy type, or of its inner
        // type when that is optional too (`Option<Building>`).
        let (keys, lazy) = match (attrs::option_inner(&f.ty), attrs::option_inner(lazy)) {
            (Some(keys), Some(inner)) => (keys, inner),
            (keys, _) => (keys.unwrap_or(&f.ty), lazy),
        };
        let (keys, lazy) = (replace_self(quote!(#keys), name), replace_self(quote!(#lazy), name));
        Some(quote_spanned!(f.ty.span()=> const _: fn() = #core::__private::assert_lazy_keys::<#keys, #lazy>;))
    });
    quote!(#(#checks)*)
}

/// `#[derive(Schema)]`: a plain struct whose nested fields have schemas, as an
/// `Object` schema (`HasSchema`), read by a generated reader.
pub fn expand_object(input: DeriveInput) -> syn::Result<TokenStream> {
    let (container, fields) = parse(&input, "Schema")?;
    if container.key.is_some()
        || container.pk.is_some()
        || container.pk_with.is_some()
        || container.process.is_some()
        || container.validate.is_some()
        || container.merge.is_some()
        || container.should_update.is_some()
        || container.index.is_some()
        || container.pk_found.is_some()
        || container.process_found.is_some()
    {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "#[derive(Schema)] takes only #[entity(serde_read)]; key, pk, index and the hooks belong to entities",
        ));
    }
    if let Some(scalar) = fields.iter().find_map(|f| f.scalar.as_ref()) {
        return Err(syn::Error::new_spanned(
            scalar,
            "a scalar field belongs to an entity: its cells are keyed by the entity's pk (#[derive(Entity)])",
        ));
    }
    let name = &input.ident;
    let core = core_path();
    let members = fields.iter().filter(|f| f.nested).map(|f| {
        let wire = &f.wire;
        let schema = nested_schema(f, &core);
        let required = !is_option(&f.ty);
        quote!(#core::NestedField { name: #wire, schema: #schema, required: #required })
    });
    let reader = readable(&input, &container, &fields, &core);
    let lazy_checks = lazy_checks(&fields, name, &core);
    let reader_ref = match reader {
        Some(_) => quote!(::std::option::Option::Some(&__RDC_READER)),
        None => quote!(::std::option::Option::None),
    };
    Ok(quote! {
        const _: () = {
            #reader
            #lazy_checks

            impl #core::HasSchema for #name {
                fn schema() -> #core::Schema {
                    static SCHEMA: ::std::sync::OnceLock<#core::Schema> = ::std::sync::OnceLock::new();
                    #core::__private::object_schema(
                        &SCHEMA,
                        || #core::Schema::derived_object(::std::vec![#(#members),*], #reader_ref),
                        <#name as #core::HasSchema>::schema,
                    )
                }
            }

            impl #name {
                /// This struct's `Object` schema: its `#[entity(nested)]` fields'
                /// schemas (`HasSchema::schema`, callable without the trait).
                #[allow(dead_code)]
                pub fn schema() -> #core::SchemaOf<#name> {
                    #core::SchemaOf::of()
                }
            }
        };
    })
}

pub fn expand(input: DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let (container, fields) = parse(&input, "Entity")?;
    let core = core_path();
    let key = container.key.clone().unwrap_or_else(|| name.to_string());

    // The one wire field the pk is, when it is one (its text becomes the
    // references to the entity without a copy).
    if container.pk_found.is_some() && (container.pk.is_some() || container.pk_with.is_some()) {
        return Err(syn::Error::new_spanned(name, "`pk_found` replaces `pk` and `pk_with`; give one of them"));
    }
    if container.process_found.is_some() && container.process.is_some() {
        return Err(syn::Error::new_spanned(name, "`process_found` replaces `process`; give one of them"));
    }
    let mut pk_field = quote!(::std::option::Option::None);
    let pk_body = match (&container.pk_with, &container.pk) {
        _ if container.pk_found.is_some() => {
            let path = &container.pk_found;
            quote!(#path(value, &#core::Found::NOWHERE))
        }
        (Some(path), _) => quote!(#path(value)),
        (None, pk) => {
            let names: Vec<String> =
                pk.clone().unwrap_or_else(|| "id".to_owned()).split(',').map(|s| s.trim().to_owned()).collect();
            let wires: Vec<String> = names
                .iter()
                .map(|n| {
                    fields.iter().find(|f| f.ident == n.as_str()).map(|f| f.wire.clone()).unwrap_or_else(|| n.clone())
                })
                .collect();
            if let [wire] = wires.as_slice() {
                pk_field = quote!(::std::option::Option::Some(#wire));
                quote!(#core::pk_string(value.get(#wire)?))
            } else {
                quote! {
                    let parts: ::std::option::Option<::std::vec::Vec<::std::string::String>> =
                        [#(#wires),*].iter().map(|k| value.get(*k).and_then(#core::pk_string)).collect();
                    parts.map(#core::composite_pk)
                }
            }
        }
    };

    // Declared unique indexes, by wire name: each a field's (by its name or
    // wire name), not the pk's and not a nested entity's.
    let pk_names: Vec<String> = match (&container.pk_with, &container.pk_found) {
        (None, None) => {
            container.pk.clone().unwrap_or_else(|| "id".to_owned()).split(',').map(|s| s.trim().to_owned()).collect()
        }
        _ => Vec::new(),
    };
    let mut indexes: Vec<String> = Vec::new();
    for n in container.index.iter().flat_map(|list| list.split(',')).map(str::trim).filter(|n| !n.is_empty()) {
        let Some(field) = fields.iter().find(|f| f.ident == n || f.wire == n) else {
            return Err(syn::Error::new_spanned(name, format!("index `{n}` names no field of `{name}`")));
        };
        if field.nested {
            return Err(syn::Error::new_spanned(
                name,
                format!("index `{n}` names a nested entity; index a scalar field"),
            ));
        }
        if pk_names.iter().any(|p| field.ident == p.as_str() || field.wire == *p) {
            return Err(syn::Error::new_spanned(
                name,
                format!("index `{n}` names the primary key, found without an index"),
            ));
        }
        indexes.push(field.wire.clone());
    }
    let indexes_const =
        (!indexes.is_empty()).then(|| quote!(const INDEXES: &'static [&'static str] = &[#(#indexes),*];));

    let nested_entries = fields.iter().filter(|f| f.nested).map(|f| {
        let wire = &f.wire;
        let schema = nested_schema(f, &core);
        let required = !is_option(&f.ty);
        quote!(#core::NestedField { name: #wire, schema: #schema, required: #required })
    });

    let shape_fields = fields.iter().map(|f| {
        let ident = &f.ident;
        let wire = &f.wire;
        if f.nested {
            let default = attrs::serde_has(&f.serde_attrs, "default").then(|| quote!(#[serde(default)]));
            if is_option(&f.ty) {
                quote!(#[serde(rename = #wire, default)] #ident: ::std::option::Option<#core::__private::serde::de::IgnoredAny>)
            } else {
                quote!(#[serde(rename = #wire)] #default #ident: #core::__private::serde::de::IgnoredAny)
            }
        } else {
            let ty = &f.ty;
            let serde_attrs = &f.serde_attrs;
            let custom = ["with", "deserialize_with"].iter().any(|o| attrs::serde_has(&f.serde_attrs, o));
            let any_str = quote!(#core::__private::AnyStr);
            let text_check = quote!(#core::__private::TextCheck);
            let optional_text = attrs::option_inner(ty).filter(|inner| attrs::is_text(inner));
            match (custom, attrs::is_string(ty), is_option(ty) && attrs::option_of_string(ty)) {
                (false, true, _) => quote!(#(#serde_attrs)* #ident: #any_str),
                (false, _, true) => quote!(#(#serde_attrs)* #ident: ::std::option::Option<#any_str>),
                _ if !custom && attrs::is_text(ty) => quote!(#(#serde_attrs)* #ident: #text_check<#ty>),
                _ if !custom && optional_text.is_some() => {
                    quote!(#(#serde_attrs)* #ident: ::std::option::Option<#text_check<#optional_text>>)
                }
                _ => quote!(#(#serde_attrs)* #ident: #ty),
            }
        }
    });
    let rename_all = container.rename_all.as_ref().map(|r| quote!(#[serde(rename_all = #r)]));
    let serde_path = quote!(#core::__private::serde).to_string();

    let hook = |path: &Option<syn::Path>, call: TokenStream| path.as_ref().map(|p| call_hook(p, call));
    let process = hook(
        &container.process,
        quote!(fn process(value: #core::json::Value, args: &#core::json::Value) -> ::std::result::Result<#core::json::Value, ::std::string::String> { HOOK(value, args) }),
    );
    let pk_found = hook(
        &container.pk_found,
        quote!(fn pk_found(value: &#core::Object, found: &#core::Found<'_>) -> ::std::option::Option<::std::string::String> { HOOK(value, found) }),
    );
    let process_found = hook(
        &container.process_found,
        quote!(fn process_found(value: #core::json::Value, found: &#core::Found<'_>) -> ::std::result::Result<#core::json::Value, ::std::string::String> { HOOK(value, found) }),
    );
    let validate = hook(
        &container.validate,
        quote!(fn validate(value: &#core::Object) -> ::std::result::Result<(), ::std::string::String> { HOOK(value) }),
    );
    let merge = hook(
        &container.merge,
        quote!(fn merge(existing: &#core::Object, incoming: &#core::Object) -> #core::Object { HOOK(existing, incoming) }),
    );
    let default_merge = container.merge.is_none().then(|| {
        quote!(
            const DEFAULT_MERGE: bool = true;
        )
    });
    let should_update = hook(
        &container.should_update,
        quote!(fn should_update(existing: &#core::EntityMeta, incoming: &#core::EntityMeta) -> bool { HOOK(existing, incoming) }),
    );

    let reader = readable(&input, &container, &fields, &core).map(|reader| {
        quote! {
            #reader
            const __RDC_READ_LIST: #core::ReadListFn<::std::vec::Vec<#name>> = #core::__private::read_list::<#name>;
        }
    });
    let reader_const = reader.as_ref().map(|_| {
        quote!(
            const READER: ::std::option::Option<
                &'static (dyn ::std::any::Any + ::std::marker::Send + ::std::marker::Sync),
            > = ::std::option::Option::Some(&__RDC_READER);
            const LIST_READER: ::std::option::Option<
                &'static (dyn ::std::any::Any + ::std::marker::Send + ::std::marker::Sync),
            > = ::std::option::Option::Some(&__RDC_READ_LIST);
        )
    });

    let lazy_checks = lazy_checks(&fields, name, &core);
    Ok(quote! {
        const _: () = {
            #reader
            #lazy_checks

            impl #core::Entity for #name {
                #reader_const
                const KEY: &'static str = #key;
                const PK_FIELD: ::std::option::Option<&'static str> = #pk_field;
                #indexes_const

                fn pk_of(value: &#core::Object) -> ::std::option::Option<::std::string::String> {
                    #pk_body
                }

                fn nested_fields() -> &'static [#core::NestedField] {
                    static FIELDS: ::std::sync::OnceLock<::std::vec::Vec<#core::NestedField>> = ::std::sync::OnceLock::new();
                    FIELDS.get_or_init(|| ::std::vec![#(#nested_entries),*])
                }

                fn check_fields(value: &#core::json::Value) -> ::std::result::Result<(), #core::FieldError> {
                    #[derive(#core::__private::serde::Deserialize)]
                    #[serde(crate = #serde_path)]
                    #rename_all
                    #[allow(dead_code, non_snake_case)]
                    struct __RdcShape { #(#shape_fields),* }
                    #core::__private::deserialize_at::<__RdcShape>(value).map(|_| ())
                }

                #process
                #pk_found
                #process_found
                #validate
                #merge
                #default_merge
                #should_update
            }

            impl #core::HasSchema for #name {
                fn schema() -> #core::Schema {
                    <#name as #core::Entity>::schema().into()
                }
            }

            // A lazy field of this entity holds its key.
            impl #core::LazyKeys<#name> for #core::Pk {
                fn stored_keys(&self) -> #core::json::Value {
                    #core::json::Value::String(self.0.clone())
                }
            }
            impl #core::LazyKeys<#name> for ::std::string::String {
                fn stored_keys(&self) -> #core::json::Value {
                    #core::json::Value::String(::std::convert::From::from(self.as_str()))
                }
            }
        };
    })
}

/// Replaces the `HOOK` placeholder in a method template by the user's function path.
fn call_hook(path: &syn::Path, template: TokenStream) -> TokenStream {
    template
        .into_iter()
        .map(|tt| match tt {
            proc_macro2::TokenTree::Ident(ident) if ident == "HOOK" => quote!(#path),
            proc_macro2::TokenTree::Group(group) => {
                let inner = call_hook(path, group.stream());
                let mut new = proc_macro2::Group::new(group.delimiter(), inner);
                new.set_span(group.span());
                std::iter::once(proc_macro2::TokenTree::Group(new)).collect()
            }
            other => std::iter::once(other).collect(),
        })
        .collect()
}

/// The entity's [`ReadFn`](rdc_core::ReadFn): members matched to fields by
/// wire name, each read by its type's direct path or serde, missing ones
/// filled as serde's derive fills them.
fn reader(core: &TokenStream, name: &syn::Ident, serde_name: &str, fields: &[Field]) -> TokenStream {
    // `Self` in a field type means the struct (the reader is a free function).
    let types: Vec<TokenStream> = fields
        .iter()
        .map(|f| {
            let ty = &f.ty;
            replace_self(quote!(#ty), name)
        })
        .collect();
    let members = fields.iter().map(|f| {
        let (wire, nested) = (&f.wire, f.nested);
        quote!(#core::__private::Member { name: #wire, nested: #nested })
    });
    let count = fields.len();
    let inits = fields.iter().zip(&types).enumerate().map(|(i, (f, ty))| {
        let (ident, wire) = (&f.ident, &f.wire);
        // A field that does not fit leaves the building to serde.
        let or_give_up = |read: TokenStream| {
            quote!(match #read {
                ::std::option::Option::Some(__rdc_field) => __rdc_field,
                ::std::option::Option::None => break 'rdc_build,
            })
        };
        let read = or_give_up(if f.nested {
            quote!(__rdc_reader.nested::<#ty>(#wire, __rdc_value))
        } else {
            quote!((&#core::__private::Probe::<#ty>::NEW).read_field(__rdc_reader, __rdc_value))
        });
        let missing = match &f.missing {
            Some(attrs::Missing::Default) => quote!(::std::default::Default::default()),
            Some(attrs::Missing::Call(path)) => quote!(#path()),
            _ => or_give_up(quote!(__rdc_reader.missing::<#ty>(#wire))),
        };
        quote!(#ident: match __rdc_values[#i] {
            ::std::option::Option::Some(__rdc_value) => #read,
            ::std::option::Option::None => #missing,
        })
    });
    quote! {
        const __RDC_FIELDS: &[#core::__private::Member] = &[#(#members),*];

        #[allow(unused_imports, clippy::needless_borrow, clippy::indexing_slicing, clippy::needless_return, unreachable_code)]
        fn __rdc_read<'__rdc_s>(
            __rdc_reader: &mut #core::__private::EntityReader<'_, '_>,
            __rdc_slot: #core::__private::Slot<'__rdc_s, #name>,
        ) -> ::std::result::Result<#core::__private::Filled<'__rdc_s>, #core::__private::serde_json::Error> {
            use #core::__private::{ReadSerde as _, ReadStored as _};
            let mut __rdc_values = [::std::option::Option::None; #count];
            __rdc_reader.collect(__RDC_FIELDS, &mut __rdc_values);
            // Built straight into the slot (a list's element), unless a field
            // does not fit.
            'rdc_build: {
                let __rdc_reader = &*__rdc_reader;
                return ::std::result::Result::Ok(#core::__private::fill(#name { #(#inits),* }, __rdc_slot));
            }
            // serde says what is wrong, as it would have read it.
            ::std::result::Result::Ok(#core::__private::fill(__rdc_reader.serde()?, __rdc_slot))
        }

        static __RDC_READER: #core::__private::Reader<#name> =
            #core::__private::Reader::new(__rdc_read, #serde_name, __RDC_FIELDS);
    }
}

/// `tokens` with every `Self` replaced by `name`.
fn replace_self(tokens: TokenStream, name: &syn::Ident) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            proc_macro2::TokenTree::Ident(ident) if ident == "Self" => quote!(#name),
            proc_macro2::TokenTree::Group(group) => {
                let mut new = proc_macro2::Group::new(group.delimiter(), replace_self(group.stream(), name));
                new.set_span(group.span());
                std::iter::once(proc_macro2::TokenTree::Group(new)).collect()
            }
            other => std::iter::once(other).collect(),
        })
        .collect()
}
