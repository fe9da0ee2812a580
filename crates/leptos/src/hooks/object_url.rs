//! Images and other blobs shown through an endpoint: `use_object_url` and
//! `<Img>`. One object URL per endpoint and args, shared by every reader,
//! revoked when the last reader goes and when a reload replaces it.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use leptos::prelude::*;
use rdc_controller::{Controller, FetchError};
use rdc_core::json::Value;
use rdc_rest::{Blob, FileDownload};

use crate::hooks::suspense::Readable;
use crate::provider::use_controller;

/// A result that holds a [`Blob`]: what [`use_object_url`] makes a URL of.
///
/// ```
/// use rdc_leptos::BlobResult;
/// let blob = rdc_rest::Blob::from_bytes(vec![1, 2], "image/png");
/// assert_eq!(blob.blob().size(), 2);
/// ```
pub trait BlobResult: 'static {
    /// The blob.
    fn blob(&self) -> &Blob;
}

impl BlobResult for Blob {
    fn blob(&self) -> &Blob {
        self
    }
}

impl BlobResult for FileDownload {
    fn blob(&self) -> &Blob {
        &self.blob
    }
}

/// What [`use_object_url`] shows: the `blob:` URL once fetched and the typed
/// error of the last fetch.
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::{recipes, RestEndpoint};
/// let photo = recipes::blob(&RestEndpoint::get("/api/photo").args::<()>().body::<()>());
/// let shown = rdc_leptos::use_object_url(photo, Some(()));
/// let view = view! { <img src=move || shown.url.get()/> };
/// # let _ = view;
/// ```
pub struct ObjectUrl<E: Send + Sync + 'static> {
    /// The object URL (`blob:...`), `None` until the first fetch lands.
    pub url: Signal<Option<String>>,
    /// The typed error of the last fetch (the URL before it stays shown).
    pub error: Signal<Option<FetchError<E>>>,
    /// Fetches again; the new blob's URL replaces the old, which is revoked.
    pub reload: Callback<()>,
}

impl<E: Send + Sync> Clone for ObjectUrl<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: Send + Sync> Copy for ObjectUrl<E> {}

impl<E: Send + Sync> std::fmt::Debug for ObjectUrl<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectUrl").field("url", &self.url.try_get_untracked()).finish_non_exhaustive()
    }
}

/// Every object URL a `DataProvider` shows, by endpoint type and key.
#[derive(Clone, Debug)]
pub(crate) struct ObjectUrls(Arc<Registry>);

impl ObjectUrls {
    /// An empty registry (one per `DataProvider`).
    pub(crate) fn new() -> ObjectUrls {
        ObjectUrls(Arc::default())
    }
}

#[derive(Default, Debug)]
struct Registry {
    entries: Mutex<HashMap<(TypeId, String), Box<dyn Any + Send + Sync>>>,
    /// Numbers each fetch, so only the latest of a key lands.
    fetches: AtomicU64,
}

impl Registry {
    fn entries(&self) -> MutexGuard<'_, HashMap<(TypeId, String), Box<dyn Any + Send + Sync>>> {
        crate::lock(&self.entries)
    }

    fn next_number(&self) -> u64 {
        self.fetches.fetch_add(1, Ordering::SeqCst) + 1
    }
}

/// One key's URL, shared by its readers.
struct Shared<E: 'static> {
    readers: usize,
    fetch: u64,
    url: ArcRwSignal<Option<String>>,
    error: ArcRwSignal<Option<FetchError<E>>>,
}

type Shown<E> = (ArcRwSignal<Option<String>>, ArcRwSignal<Option<FetchError<E>>>);

/// Fetches `endpoint` for `args` (a [`Blob`] result: see
/// `rdc_rest::recipes::blob`) and shows it as an object URL, for an `<img>`,
/// `<video>` or a download link. Readers of the same endpoint and args share
/// one request and one URL; it is revoked when the last of them unmounts or
/// moves to other args, and when [`ObjectUrl::reload`] replaces it. `None`
/// args show nothing. Fetches only in the browser (never during SSR).
/// (data-client's `Img`, as a hook.)
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::{recipes, RestEndpoint};
/// #[derive(Clone, PartialEq, serde::Serialize)]
/// struct Avatar { id: String }
/// let avatar = recipes::blob(&RestEndpoint::get("/api/users/:id/avatar").args::<Avatar>().body::<()>());
/// let shown = rdc_leptos::use_object_url(avatar, Some(Avatar { id: "1".into() }));
/// let view = view! {
///     <img src=move || shown.url.get() alt="avatar"/>
///     {move || shown.error.get().map(|e| view! { <p class="error">{e.to_string()}</p> })}
/// };
/// # let _ = view;
/// ```
pub fn use_object_url<C>(endpoint: C, args: impl Into<Signal<Option<C::Args>>>) -> ObjectUrl<C::Error>
where
    C: Readable,
    C::Result: BlobResult,
{
    let args: Signal<Option<C::Args>> = args.into();
    let controller = use_controller();
    let urls = use_context::<ObjectUrls>().unwrap_or_else(ObjectUrls::new);
    let shown = ArcRwSignal::new(None::<Shown<C::Error>>);
    // The key this reader holds a share of.
    let held = Arc::new(Mutex::new(None::<String>));
    let reader = Arc::new((controller, endpoint, urls.0.clone()));

    let (effect_shown, effect_held, effect_reader) = (shown.clone(), held.clone(), reader.clone());
    Effect::new(move |_| {
        let (controller, endpoint, registry) = &*effect_reader;
        let next = args.with(|a| a.as_ref().map(|a| endpoint.json_and_key(a)));
        let previous = crate::lock(&effect_held).take();
        match next {
            None => effect_shown.set(None),
            Some(Err(error)) => {
                let failed = Some(FetchError::Endpoint(error));
                effect_shown.set(Some((ArcRwSignal::new(None), ArcRwSignal::new(failed))));
            }
            Some(Ok((json, key))) => {
                let signals = acquire(controller, endpoint, registry, json, &key);
                *crate::lock(&effect_held) = Some(key);
                effect_shown.set(Some(signals));
            }
        }
        // Released after the new share is taken: the same key stays fetched.
        if let Some(key) = previous {
            release::<C::Error>(registry, key);
        }
    });

    let (cleanup_held, cleanup_reader) = (held.clone(), reader.clone());
    on_cleanup(move || {
        let held = crate::lock(&cleanup_held).take();
        if let Some(key) = held {
            release::<C::Error>(&cleanup_reader.2, key);
        }
    });

    let reload = Callback::new(move |()| {
        let (controller, endpoint, registry) = &*reader;
        let Some(key) = crate::lock(&held).clone() else { return };
        // The args as they are now; between a change and the effect taking
        // it in they name another key than the one held: nothing to reload.
        let Some(Ok((json, now))) = args.with_untracked(|a| a.as_ref().map(|a| endpoint.json_and_key(a))) else {
            return;
        };
        if now != key {
            return;
        }
        let Some(fetch) = next_fetch::<C::Error>(registry, &key) else { return };
        start(controller, endpoint, registry, json, key, fetch);
    });

    let (url_shown, error_shown) = (shown.clone(), shown);
    ObjectUrl {
        url: Signal::derive(move || url_shown.with(|s| s.as_ref().and_then(|(url, _)| url.get()))),
        error: Signal::derive(move || error_shown.with(|s| s.as_ref().and_then(|(_, error)| error.get()))),
        reload,
    }
}

/// An `<img>` showing what `endpoint` answers for `args` through
/// [`use_object_url`] (so images of the same endpoint and args share one
/// URL). Attributes go on the `<img>` with `attr:`.
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::{recipes, RestEndpoint};
/// # use rdc_leptos::Img;
/// let logo = recipes::blob(&RestEndpoint::get("/api/logo.png").args::<()>().body::<()>());
/// let view = view! { <Img endpoint=logo args=() attr:alt="logo" attr:class="logo"/> };
/// # let _ = view;
/// ```
#[component]
pub fn Img<C>(
    /// The endpoint answering the image (a [`Blob`] result).
    endpoint: C,
    /// Its args.
    #[prop(into)]
    args: Signal<C::Args>,
) -> impl IntoView
where
    C: Readable,
    C::Result: BlobResult,
{
    let shown = use_object_url(endpoint, Signal::derive(move || Some(args.get())));
    view! { <img src=move || shown.url.get()/> }
}

/// A share of `key`'s URL: the entry there, or a new one with its fetch started.
fn acquire<C>(
    controller: &Controller,
    endpoint: &C,
    registry: &Arc<Registry>,
    json: Value,
    key: &str,
) -> Shown<C::Error>
where
    C: Readable,
    C::Result: BlobResult,
{
    let id = (TypeId::of::<C::Error>(), key.to_owned());
    if let Some(shared) = registry.entries().get_mut(&id).and_then(|e| e.downcast_mut::<Shared<C::Error>>()) {
        shared.readers += 1;
        return (shared.url.clone(), shared.error.clone());
    }
    let fetch = registry.next_number();
    let shared = Shared::<C::Error> { readers: 1, fetch, url: ArcRwSignal::new(None), error: ArcRwSignal::new(None) };
    let signals = (shared.url.clone(), shared.error.clone());
    registry.entries().insert(id, Box::new(shared));
    start(controller, endpoint, registry, json, key.to_owned(), fetch);
    signals
}

/// Gives up a share of `key`; the last one removes the entry and revokes its URL.
fn release<E: Send + Sync + 'static>(registry: &Arc<Registry>, key: String) {
    let id = (TypeId::of::<E>(), key);
    let url = {
        let mut entries = registry.entries();
        let Some(shared) = entries.get_mut(&id).and_then(|e| e.downcast_mut::<Shared<E>>()) else { return };
        shared.readers -= 1;
        if shared.readers > 0 {
            return;
        }
        let url = shared.url.get_untracked();
        entries.remove(&id);
        url
    };
    if let Some(url) = url {
        revoke(&url);
    }
}

/// Numbers a new fetch of `key` (a reload) so earlier ones no longer land.
fn next_fetch<E: Send + Sync + 'static>(registry: &Arc<Registry>, key: &str) -> Option<u64> {
    let mut entries = registry.entries();
    let shared = entries.get_mut(&(TypeId::of::<E>(), key.to_owned()))?.downcast_mut::<Shared<E>>()?;
    let fetch = registry.next_number();
    shared.fetch = fetch;
    Some(fetch)
}

/// Fetches `key` (shared with any request in flight for it) and lands the
/// answer as the entry's URL, if the entry is still there and this fetch is its latest.
fn start<C>(controller: &Controller, endpoint: &C, registry: &Arc<Registry>, json: Value, key: String, fetch: u64)
where
    C: Readable,
    C::Result: BlobResult,
{
    let request = controller.fetch(endpoint.endpoint(), json, None);
    let (endpoint, registry) = (endpoint.clone(), registry.clone());
    leptos::task::spawn(async move {
        let result = request.await.and_then(|output| endpoint.decode_result(output).map_err(FetchError::Endpoint));
        let signals = {
            let entries = registry.entries();
            let id = (TypeId::of::<C::Error>(), key.clone());
            match entries.get(&id).and_then(|e| e.downcast_ref::<Shared<C::Error>>()) {
                Some(shared) if shared.fetch == fetch => (shared.url.clone(), shared.error.clone()),
                // Every reader left (or a reload replaced this fetch): nothing is made.
                _ => return,
            }
        };
        let (url, error) = signals;
        match result.and_then(|result| {
            object_url(result.blob())
                .ok_or_else(|| FetchError::Read { key, message: "no object URL for the blob".into() })
        }) {
            Ok(new) => {
                let old = url.get_untracked();
                url.set(Some(new));
                error.set(None);
                if let Some(old) = old {
                    revoke(&old);
                }
            }
            Err(failed) => error.set(Some(failed)),
        }
    });
}

/// `URL.createObjectURL(blob)`.
#[cfg(target_arch = "wasm32")]
fn object_url(blob: &Blob) -> Option<String> {
    web_sys::Url::create_object_url_with_blob(blob.as_web()).ok()
}

/// Natively (server rendering, unit tests) there are no object URLs.
#[cfg(not(target_arch = "wasm32"))]
fn object_url(_blob: &Blob) -> Option<String> {
    None
}

/// `URL.revokeObjectURL(url)`.
#[cfg(target_arch = "wasm32")]
fn revoke(url: &str) {
    let _ = web_sys::Url::revoke_object_url(url);
}

#[cfg(not(target_arch = "wasm32"))]
fn revoke(_url: &str) {}
