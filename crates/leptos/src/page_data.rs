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
    pub(crate) fn after(self, key: Option<String>, resolved: impl std::future::Future<Output = ()> + 'static) {
        #[cfg(any(feature = "ssr", feature = "hydrate"))]
        if let Some((context, id, controller)) = self.server {
            let slice = async move {
                resolved.await;
                let keys = key.as_deref().into_iter();
                controller.dehydrate_keys(keys).to_script_text()
            };
            // The server renders a page on one thread (see the README's SSR
            // section), so the store never leaves it.
            context.write_async(id, Box::pin(send_wrapper::SendWrapper::new(slice)));
        }
        #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
        let _ = (self.server, key, resolved);
    }
}
