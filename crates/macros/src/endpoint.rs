//! `rest!` and `resource!`: typed endpoints whose path params are checked
//! against the args type at compile time.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::{Expr, Ident, LitStr, Token, Type};

/// Path of a crate of the workspace as the user's crate sees it: `::rdc_rest`,
/// or `::rdc::rest` through the facade.
pub(crate) fn crate_path(package: &str, facade_module: &str) -> TokenStream {
    use proc_macro_crate::{crate_name, FoundCrate};
    let module = format_ident!("{}", facade_module);
    match crate_name(package) {
        Ok(FoundCrate::Itself) => {
            let own = format_ident!("{}", package.replace('-', "_"));
            quote!(::#own)
        }
        Ok(FoundCrate::Name(name)) => {
            let ident = format_ident!("{}", name);
            quote!(::#ident)
        }
        Err(_) => match crate_name("rdc") {
            Ok(FoundCrate::Name(name)) => {
                let ident = format_ident!("{}", name);
                quote!(::#ident::#module)
            }
            _ => quote!(::rdc::#module),
        },
    }
}

/// The parameter names of a path template, as `PathTemplate` reads them:
/// `:` then letters, digits and `_`; those inside `{...}` are optional.
fn path_params(template: &str) -> Vec<String> {
    let mut params = Vec::new();
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        if c != ':' {
            continue;
        }
        let mut name = String::new();
        while let Some(&n) = chars.peek().filter(|n| n.is_ascii_alphanumeric() || **n == '_') {
            name.push(n);
            chars.next();
        }
        if !name.is_empty() && !params.contains(&name) {
            params.push(name);
        }
    }
    params
}

/// `fn(args: &Args) { let _ = &args.param; ... }`: fails to compile, at the
/// path, when a param is no field of the args type.
fn params_check(path: &LitStr, args: Option<&Type>, what: &str, option: &str) -> syn::Result<TokenStream> {
    let params = path_params(&path.value());
    if params.is_empty() {
        return Ok(TokenStream::new());
    }
    let Some(args) = args else {
        let names = params.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ");
        return Err(syn::Error::new(
            path.span(),
            format!("{what} `{}` has path parameters ({names}): name the args type with `{option} = YourArgs`, a struct with a field for each", path.value()),
        ));
    };
    let span = path.span();
    let fields = params.iter().map(|p| field_ident(p, span)).collect::<syn::Result<Vec<Ident>>>()?;
    Ok(quote_spanned! {span=>
        #[allow(dead_code, unused_variables)]
        fn __rdc_path_params_are_fields(args: &#args) {
            #( let _ = &args.#fields; )*
        }
    })
}

/// The field a param names: itself, or for a camelCase param its snake_case
/// (`:exchangePair` is the field `exchange_pair`, serialized as `exchangePair`
/// by `#[serde(rename_all = "camelCase")]`).
fn field_ident(param: &str, span: Span) -> syn::Result<Ident> {
    if param.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(syn::Error::new(span, format!("path parameter `{param}` cannot be a field name")));
    }
    let mut field = String::with_capacity(param.len() + 2);
    for (i, c) in param.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            field.push('_');
        }
        field.push(c.to_ascii_lowercase());
    }
    Ok(syn::parse_str::<Ident>(&field)
        .map(|i| Ident::new(&i.to_string(), span))
        .unwrap_or_else(|_| Ident::new_raw(&field, span)))
}

/// `key = value` options after the path.
#[derive(Default)]
struct Options {
    args: Option<Type>,
    body: Option<Type>,
    list_args: Option<Type>,
    schema: Option<Expr>,
    returns: Option<Type>,
    list: Option<LitStr>,
}

impl Options {
    fn parse(input: ParseStream, allowed: &[&str]) -> syn::Result<Options> {
        let mut options = Options::default();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let name = key.to_string();
            if !allowed.contains(&name.as_str()) {
                let list = allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ");
                return Err(syn::Error::new(key.span(), format!("unknown option `{name}`: expected {list}")));
            }
            match name.as_str() {
                "args" => options.args = Some(input.parse()?),
                "body" => options.body = Some(input.parse()?),
                "list_args" => options.list_args = Some(input.parse()?),
                "schema" => options.schema = Some(input.parse()?),
                "returns" => options.returns = Some(input.parse()?),
                _ => options.list = Some(input.parse()?),
            }
        }
        Ok(options)
    }
}

/// `rest!(GET "/users/:id" -> User, args = UserId, body = NewUser)`.
pub(crate) struct Rest {
    method: Ident,
    path: LitStr,
    result: Option<Type>,
    options: Options,
}

impl Parse for Rest {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let method: Ident = input.parse()?;
        let path: LitStr = input.parse()?;
        let result = if input.peek(Token![->]) {
            input.parse::<Token![->]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        let options = Options::parse(input, &["args", "body", "schema", "returns"])?;
        Ok(Rest { method, path, result, options })
    }
}

pub(crate) fn expand_rest(input: Rest) -> syn::Result<TokenStream> {
    let Rest { method, path, result, options } = input;
    let rest = crate_path("rdc-rest", "rest");
    let core = crate_path("rdc-core", "core");
    let check = params_check(&path, options.args.as_ref(), "the path", "args")?;
    let method_name = method.to_string();
    if !method_name.chars().all(|c| c.is_ascii_uppercase()) {
        return Err(syn::Error::new(
            method.span(),
            "expected an HTTP method in capitals: GET, POST, PUT, PATCH, DELETE...",
        ));
    }
    let args = options.args.map_or_else(|| quote!(()), |t| quote!(#t));
    let body = options.body.map_or_else(|| quote!(()), |t| quote!(#t));
    let typed_result = match (result, options.schema, options.returns) {
        // Through the trait, so a type without a schema is a trait error with its note.
        (Some(ty), None, None) => {
            quote!(.schema(#core::SchemaOf::<#ty>::unchecked(<#ty as #core::HasSchema>::schema())))
        }
        (None, Some(schema), None) => quote!(.schema(#schema)),
        (None, None, Some(ty)) => quote!(.returns::<#ty>()),
        (None, None, None) => TokenStream::new(),
        _ => {
            return Err(syn::Error::new(
                path.span(),
                "give the result one way: `-> Type` (its schema), `schema = ...` or `returns = Type` (no schema)",
            ))
        }
    };
    Ok(quote! {{
        #check
        #rest::RestEndpoint::new(#method_name, #path).args::<#args>().body::<#body>()#typed_result
    }})
}

/// `resource!("/users/:id" -> User, args = UserId, list_args = (), body = NewUser, list = "UserList")`.
pub(crate) struct ResourceInput {
    path: LitStr,
    entity: Type,
    options: Options,
}

impl Parse for ResourceInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let path: LitStr = input.parse()?;
        input.parse::<Token![->]>()?;
        let entity: Type = input.parse()?;
        let options = Options::parse(input, &["args", "list_args", "body", "list"])?;
        Ok(ResourceInput { path, entity, options })
    }
}

pub(crate) fn expand_resource(input: ResourceInput) -> syn::Result<TokenStream> {
    let ResourceInput { path, entity, options } = input;
    let rest = crate_path("rdc-rest", "rest");
    let check = params_check(&path, options.args.as_ref(), "the resource path", "args")?;
    // As `rdc_rest::resource` cuts it: the last param goes when it ends the path.
    let item_path = path.value();
    let list_path = match item_path.rfind("/:") {
        Some(i) if !item_path[i + 2..].contains('/') => item_path[..i].to_owned(),
        _ => item_path.clone(),
    };
    let list_check =
        params_check(&LitStr::new(&list_path, path.span()), options.list_args.as_ref(), "the list path", "list_args")?;
    let args = options.args.map_or_else(|| quote!(()), |t| quote!(#t));
    let list_args = options.list_args.map_or_else(|| quote!(()), |t| quote!(#t));
    // No body type given: the dynamic form's (an optional JSON value).
    let body = options.body.map(|t| quote!(.body::<#t>()));
    // The entity's own name (`api::User`: `UserList`), however its path is written.
    let list = match options.list {
        Some(list) => quote!(#list),
        None => {
            let name = match &entity {
                Type::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            };
            let Some(name) = name else {
                return Err(syn::Error::new_spanned(&entity, "name the lists' collection: `list = \"...\"`"));
            };
            let list = LitStr::new(&format!("{name}List"), Span::call_site());
            quote!(#list)
        }
    };
    Ok(quote! {{
        #check
        #list_check
        #rest::resource::<#entity>(#path, #list).args::<#args>().list_args::<#list_args>()#body
    }})
}

#[cfg(test)]
mod tests {
    use super::path_params;

    #[test]
    fn params_are_read_as_the_template_parser_reads_them() {
        assert_eq!(path_params("/users/:id"), ["id"]);
        assert_eq!(path_params("/price/:exchangePair{/:at}?"), ["exchangePair", "at"]);
        assert_eq!(path_params("/a/:b/:b/c:"), ["b"]);
        assert!(path_params("/plain").is_empty());
    }

    #[test]
    fn a_camel_case_param_is_its_snake_case_field() {
        let span = proc_macro2::Span::call_site();
        assert_eq!(super::field_ident("exchangePair", span).unwrap().to_string(), "exchange_pair");
        assert_eq!(super::field_ident("id", span).unwrap().to_string(), "id");
        assert_eq!(super::field_ident("type", span).unwrap().to_string(), "r#type");
        assert!(super::field_ident("0", span).is_err());
    }
}
