//! The store a server-rendered page carries: on the server each Suspense read,
//! once resolved, writes the slice of the store it read (its result and the
//! entities that reaches) into the page through Leptos' shared context; in the
//! browser the same read, made in the same order while the page hydrates, takes
//! its slice up before it reads, so it shows the server's data without a request.
//! Without the `ssr` or `hydrate` feature (client-side rendering) nothing is carried.

use rdc_controller::Controller;

/// Registers one read with the page: in the browser, hydrates `controller` with
/// the slice the server wrote for it. Returns what the server side needs to
/// write that slice once the read resolves ([`Carry::after`]).
pub(crate) fn carry(controller: &Controller) -> Carry {
    #[cfg(any(feature = "ssr", feature = "hydrate"))]
    if let Some(context) = leptos::prelude::Owner::current_shared_context() {
        let id = context.next_id();
        if context.is_browser() {
            let slice =
                context.read_data(&id).and_then(|text| rdc_controller::Dehydrated::from_script_text(&text).ok());
            if let Some(slice) = slice {
                controller.hydrate(slice);
            }
            return Carry { server: None };
        }
        return Carry { server: Some((context, id, controller.clone())) };
    }
    let _ = controller;
    Carry { server: None }
}

/// A read registered with a server-rendered page.
pub(crate) struct Carry {
    #[cfg(any(feature = "ssr", feature = "hydrate"))]
    server: Option<(
        std::sync::Arc<dyn hydration_context::SharedContext + Send + Sync>,
        hydration_context::SerializedDataId,
        Controller,
    )>,
    #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
    server: Option<std::convert::Infallible>,
}

impl Carry {
    /// On the server, writes the slice of `key` into the page once `resolved`
    /// finishes (the read it belongs to has its data or its error).
    pub(crate) fn after(self, key: Option<String>, resolved: impl std::future::Future<Output = ()> + Send + 'static) {
        #[cfg(any(feature = "ssr", feature = "hydrate"))]
        if let Some((context, id, controller)) = self.server {
            let resolved = Shareable(std::sync::Mutex::new(Box::pin(resolved)));
            let slice = async move {
                resolved.await;
                let keys = key.as_deref().into_iter();
                controller.dehydrate_keys(keys).to_script_text()
            };
            context.write_async(id, Box::pin(slice));
        }
        #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
        let _ = (self.server, key, resolved);
    }
}

/// A `Send` future that is also `Sync`, as Leptos' shared context takes them:
/// only its owner polls it (through `&mut`), so the lock is never contended.
#[cfg(any(feature = "ssr", feature = "hydrate"))]
struct Shareable(std::sync::Mutex<std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>>);

#[cfg(any(feature = "ssr", feature = "hydrate"))]
impl std::future::Future for Shareable {
    type Output = ();

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        let inner = self.get_mut().0.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        inner.as_mut().poll(cx)
    }
}
