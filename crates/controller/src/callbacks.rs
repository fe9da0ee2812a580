//! A mutation's callbacks (TanStack's `onMutate`, `onSuccess`, `onError`,
//! `onSettled`), typed: the success one gets the result, the error one the
//! error, and what `on_mutate` returns reaches the others.

use super::{BoxFuture, Controller, FetchError, TypedEndpoint};
use std::sync::Arc;

type Mutate<C, X> = Arc<dyn Fn(&<C as TypedEndpoint>::Args) -> X + Send + Sync>;
type Success<C, X> = Arc<dyn Fn(&<C as TypedEndpoint>::Result, &<C as TypedEndpoint>::Args, &X) + Send + Sync>;
type Failure<C, X> =
    Arc<dyn Fn(&FetchError<<C as TypedEndpoint>::Error>, &<C as TypedEndpoint>::Args, &X) + Send + Sync>;
/// What `on_settled` is given: the result or the error.
pub type Settled<'a, C> = Result<&'a <C as TypedEndpoint>::Result, &'a FetchError<<C as TypedEndpoint>::Error>>;
type Settle<C, X> = Arc<dyn Fn(Settled<'_, C>, &<C as TypedEndpoint>::Args, &X) + Send + Sync>;

/// What to run around a mutation sent with [`Controller::fetch_with`] (or
/// a `use_mutation` hook): `on_mutate` before it is sent (its return value,
/// the context, reaches the others: say, what to put back on failure), then
/// `on_success` or `on_error`, then `on_settled`. They run once the store
/// holds the answer, so what they read or invalidate sees it.
///
/// Call `on_mutate` first: it sets the context's type; a callback added
/// before it is kept, but gets `()` as its context.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use rdc_controller::{from_fn, Controller, FakeTime, LocalTasks, MutationCallbacks};
/// async fn rename(name: String) -> Result<String, String> { Ok(name.to_uppercase()) }
/// let rename = from_fn("rename", rename).mutation();
/// let (time, tasks) = (FakeTime::default(), LocalTasks::default());
/// let controller = Controller::new(time.clone(), time, tasks.clone());
/// let log = Arc::new(Mutex::new(Vec::<String>::new()));
/// let (a, b, c) = (log.clone(), log.clone(), log.clone());
/// let callbacks = MutationCallbacks::new()
///     .on_mutate(move |name: &String| { a.lock().unwrap().push(format!("mutate {name}")); 7 })
///     .on_success(move |done: &String, _, context: &i32| b.lock().unwrap().push(format!("success {done} {context}")))
///     .on_settled(move |outcome, _, _| c.lock().unwrap().push(format!("settled {}", outcome.is_ok())));
/// let done = tasks.block_on(controller.fetch_with(&rename, "ada".into(), (), &callbacks));
/// assert_eq!(done.unwrap(), "ADA");
/// assert_eq!(*log.lock().unwrap(), ["mutate ada", "success ADA 7", "settled true"]);
/// ```
pub struct MutationCallbacks<C: TypedEndpoint, X = ()> {
    mutate: Mutate<C, X>,
    success: Option<Success<C, X>>,
    error: Option<Failure<C, X>>,
    settled: Option<Settle<C, X>>,
}

impl<C: TypedEndpoint, X> Clone for MutationCallbacks<C, X> {
    fn clone(&self) -> Self {
        MutationCallbacks {
            mutate: Arc::clone(&self.mutate),
            success: self.success.clone(),
            error: self.error.clone(),
            settled: self.settled.clone(),
        }
    }
}

impl<C: TypedEndpoint, X> std::fmt::Debug for MutationCallbacks<C, X> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MutationCallbacks")
            .field("on_success", &self.success.is_some())
            .field("on_error", &self.error.is_some())
            .field("on_settled", &self.settled.is_some())
            .finish_non_exhaustive()
    }
}

impl<C: TypedEndpoint> Default for MutationCallbacks<C, ()> {
    fn default() -> Self {
        MutationCallbacks { mutate: Arc::new(|_| ()), success: None, error: None, settled: None }
    }
}

impl<C: TypedEndpoint> MutationCallbacks<C, ()> {
    /// No callbacks (see the type's example).
    ///
    /// ```
    /// # async fn f(_: ()) -> Result<(), String> { Ok(()) }
    /// let none = rdc_controller::MutationCallbacks::<rdc_controller::FnEndpoint<(), (), String>>::new();
    /// # let _ = none;
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `f` with the args before the mutation is sent (before its
    /// optimistic layer goes on); what it returns is the context the other
    /// callbacks get. Callbacks added before keep running, without it.
    ///
    /// ```
    /// use rdc_controller::{FnEndpoint, MutationCallbacks};
    /// let callbacks = MutationCallbacks::<FnEndpoint<u32, u32, String>>::new().on_mutate(|n: &u32| n + 1);
    /// # let _ = callbacks;
    /// ```
    pub fn on_mutate<Y: Send + 'static>(
        self,
        f: impl Fn(&C::Args) -> Y + Send + Sync + 'static,
    ) -> MutationCallbacks<C, Y> {
        let success = self.success.map(|old| -> Success<C, Y> { Arc::new(move |r, a, _| old(r, a, &())) });
        let error = self.error.map(|old| -> Failure<C, Y> { Arc::new(move |e, a, _| old(e, a, &())) });
        let settled = self.settled.map(|old| -> Settle<C, Y> { Arc::new(move |o, a, _| old(o, a, &())) });
        MutationCallbacks { mutate: Arc::new(f), success, error, settled }
    }
}

impl<C: TypedEndpoint, X: Send + 'static> MutationCallbacks<C, X> {
    /// Runs `f` with the result, the args and the context once the answer
    /// is stored (replaces an earlier `on_success`).
    ///
    /// ```
    /// use rdc_controller::{FnEndpoint, MutationCallbacks};
    /// let callbacks = MutationCallbacks::<FnEndpoint<u32, u32, String>>::new().on_success(|square: &u32, n: &u32, _| println!("{n}² = {square}"));
    /// # let _ = callbacks;
    /// ```
    pub fn on_success(mut self, f: impl Fn(&C::Result, &C::Args, &X) + Send + Sync + 'static) -> Self {
        self.success = Some(Arc::new(f));
        self
    }

    /// Runs `f` with the error, the args and the context when the mutation
    /// fails in any way: the endpoint's error, a timeout, a reset, an abort
    /// (replaces an earlier `on_error`).
    ///
    /// ```
    /// use rdc_controller::{FnEndpoint, MutationCallbacks};
    /// let callbacks = MutationCallbacks::<FnEndpoint<u32, u32, String>>::new().on_error(|error, _, _| eprintln!("{error}"));
    /// # let _ = callbacks;
    /// ```
    pub fn on_error(mut self, f: impl Fn(&FetchError<C::Error>, &C::Args, &X) + Send + Sync + 'static) -> Self {
        self.error = Some(Arc::new(f));
        self
    }

    /// Runs `f` after `on_success` or `on_error`, with the outcome (replaces
    /// an earlier `on_settled`).
    ///
    /// ```
    /// use rdc_controller::{FnEndpoint, MutationCallbacks};
    /// let callbacks = MutationCallbacks::<FnEndpoint<u32, u32, String>>::new().on_settled(|outcome, _, _| assert!(outcome.is_ok()));
    /// # let _ = callbacks;
    /// ```
    pub fn on_settled(mut self, f: impl Fn(Settled<'_, C>, &C::Args, &X) + Send + Sync + 'static) -> Self {
        self.settled = Some(Arc::new(f));
        self
    }

    /// Runs `on_mutate`: the context.
    pub(crate) fn mutate(&self, args: &C::Args) -> X {
        (self.mutate)(args)
    }

    /// Runs `on_success` or `on_error`, then `on_settled`.
    pub(crate) fn settle(&self, outcome: &Result<C::Result, FetchError<C::Error>>, args: &C::Args, context: &X) {
        match (outcome, &self.success, &self.error) {
            (Ok(result), Some(success), _) => success(result, args, context),
            (Err(error), _, Some(failure)) => failure(error, args, context),
            _ => {}
        }
        if let Some(settled) = &self.settled {
            settled(outcome.as_ref(), args, context);
        }
    }
}

impl Controller {
    /// [`Controller::fetch`] with `callbacks` run around it (for mutations,
    /// though a read may have them too): `on_mutate` now, before anything
    /// is sent; the others once the answer is stored, before this resolves.
    /// They run inside the returned future: dropped, the request still goes
    /// and its answer is stored, but no callback runs (`use_mutation` keeps
    /// each run's future alive).
    ///
    /// ```
    /// use std::sync::{atomic::{AtomicBool, Ordering}, Arc};
    /// use rdc_controller::{from_fn, Controller, FakeTime, FetchError, FnError, LocalTasks, MutationCallbacks};
    /// async fn refuse(_: u32) -> Result<u32, String> { Err("no".into()) }
    /// let refuse = from_fn("refuse", refuse).mutation();
    /// let (time, tasks) = (FakeTime::default(), LocalTasks::default());
    /// let controller = Controller::new(time.clone(), time, tasks.clone());
    /// let failed = Arc::new(AtomicBool::new(false));
    /// let seen = failed.clone();
    /// let callbacks = MutationCallbacks::new().on_error(move |e: &FetchError<FnError<String>>, _, _| seen.store(true, Ordering::SeqCst));
    /// assert!(tasks.block_on(controller.fetch_with(&refuse, 1, (), &callbacks)).is_err());
    /// assert!(failed.load(Ordering::SeqCst));
    /// ```
    pub fn fetch_with<C: TypedEndpoint, X: Send + 'static>(
        &self,
        endpoint: &C,
        args: C::Args,
        body: C::Body,
        callbacks: &MutationCallbacks<C, X>,
    ) -> BoxFuture<Result<C::Result, FetchError<C::Error>>> {
        let context = callbacks.mutate(&args);
        let encoded = endpoint.encode_args(&args).and_then(|json| Ok((json, endpoint.encode_body(body)?)));
        let sent = encoded.map(|(json, body)| self.fetch_json(endpoint.endpoint(), json, body));
        let (endpoint, callbacks) = (endpoint.clone(), callbacks.clone());
        Box::pin(async move {
            let outcome = match sent {
                Ok(sent) => sent.await.and_then(|output| endpoint.decode_result(output).map_err(FetchError::Endpoint)),
                Err(error) => Err(FetchError::Endpoint(error)),
            };
            callbacks.settle(&outcome, &args, &context);
            outcome
        })
    }
}
