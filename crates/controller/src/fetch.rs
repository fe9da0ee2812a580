//! Fetching: one shared request per key, its answer written in order, timeouts
//! and cancellation, and the typed calls over the JSON ones.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::*;

impl Controller {
    /// Fetches `endpoint` with `args` (and a body for mutations), stores the
    /// result, and resolves to the endpoint's typed result (one entity as read
    /// back from the store: whole, however partial the answer). Concurrent
    /// reads with the same key and args share one request; mutations never do.
    ///
    /// # Errors
    /// The endpoint's error, a normalization error (the store is unchanged), or
    /// [`FetchError::Reset`] when the store was reset meanwhile.
    pub fn fetch<C: TypedEndpoint>(
        &self,
        endpoint: &C,
        args: C::Args,
        body: C::Body,
    ) -> BoxFuture<Result<C::Result, FetchError<C::Error>>> {
        match encode(endpoint, &args, body) {
            Ok((args, body)) => typed(endpoint, self.fetch_json(endpoint.endpoint(), args, body)),
            Err(error) => Box::pin(async move { Err(FetchError::Endpoint(error)) }),
        }
    }

    /// [`Controller::fetch`] with the JSON args and body the endpoint takes.
    pub(super) fn fetch_json<E: Endpoint + Clone>(
        &self,
        endpoint: &E,
        args: Value,
        body: Option<E::Body>,
    ) -> BoxFuture<Result<E::Output, FetchError<E::Error>>> {
        let key = match endpoint.key(&args) {
            Ok(key) => key,
            Err(error) => return Box::pin(async move { Err(FetchError::Endpoint(error)) }),
        };
        let policy = endpoint.policy();
        // Only a request that sends what this call would is joined: the same
        // endpoint type (another shares the key but not the output and error
        // types) and the same args (a key can leave one out: a list's page).
        // Another request of the key keeps its mark; this one goes unmarked.
        let mut joinable = !policy.mutation;
        // Looked up and marked at once: two threads' identical reads never both send.
        let at_once = self.inner.gate.enter();
        if joinable {
            let existing = self.inner.keys.borrow().get(&key).and_then(|k| k.inflight.clone());
            if let Some(shared) = existing {
                if shared.sends_as::<E>(&args) {
                    return Box::pin(async move { downcast::<E>(Wait(shared).await) });
                }
                joinable = false;
            }
        }
        let shared = Arc::new(Shared::of::<E>(args.clone()));
        if joinable {
            keys::entry(&mut self.inner.keys.borrow_mut(), &key).inflight = Some(Arc::clone(&shared));
        }
        drop(at_once);
        if joinable {
            // Readers show "loading".
            self.touch_key(&key);
            self.changed();
        }
        // The request runs as its own task: a caller that stops waiting (an
        // unmounted component, a re-run read) never strands the other waiters.
        let work = self.request(endpoint.clone(), key, args, body, Arc::clone(&shared), None);
        self.inner.spawner.spawn(work);
        Box::pin(async move { downcast::<E>(Wait(shared).await) })
    }

    /// Like [`Controller::fetch`], but cancellable with the returned [`Abort`]: it
    /// never joins or is joined by other requests, and once aborted it resolves to
    /// [`FetchError::Aborted`] and stores nothing.
    pub fn fetch_cancellable<C: TypedEndpoint>(
        &self,
        endpoint: &C,
        args: C::Args,
        body: C::Body,
    ) -> (BoxFuture<Result<C::Result, FetchError<C::Error>>>, Abort) {
        let abort = Abort::default();
        let prepared =
            endpoint.json_and_key(&args).and_then(|(args, key)| Ok((args, key, endpoint.encode_body(body)?)));
        let (args, key, body) = match prepared {
            Ok(prepared) => prepared,
            Err(error) => return (Box::pin(async move { Err(FetchError::Endpoint(error)) }), abort),
        };
        let raw = endpoint.endpoint();
        let shared = Arc::new(Shared::of::<C::Endpoint>(args.clone()));
        let work = self.request(raw.clone(), key, args, body, Arc::clone(&shared), Some(abort.clone()));
        self.inner.spawner.spawn(work);
        let output = Box::pin(async move { downcast::<C::Endpoint>(Wait(shared).await) });
        (typed(endpoint, output), abort)
    }

    /// Sends one request, applies its optimistic layer meanwhile, settles the
    /// store, and resolves `shared` for every waiter.
    pub(super) fn request<E: Endpoint + Clone>(
        &self,
        endpoint: E,
        key: String,
        args: Value,
        body: Option<E::Body>,
        shared: Arc<Shared>,
        abort: Option<Abort>,
    ) -> BoxFuture<()> {
        let this = self.clone();
        // The session it was made in: a reset before it runs (a logout right
        // after a reload replayed it) means it is never sent nor shown.
        let epoch = self.inner.epoch.load(Ordering::SeqCst);
        Box::pin(async move {
            if epoch != this.inner.epoch.load(Ordering::SeqCst) {
                shared.resolve(Err(Arc::new(FetchError::<E::Error>::Reset) as Arc<dyn std::any::Any + Send + Sync>));
                return;
            }
            let policy = endpoint.policy();
            this.note_args(&key, &args);
            let active = this.begin_activity(&key, &args, policy.mutation);
            let now = this.now();
            let sent = if policy.mutation { this.inner.order.mutation(now) } else { this.inner.order.now(now) };
            let layer = policy.mutation.then(|| this.show_optimistic(&endpoint, &key, &args, &body, sent)).flatten();
            // A mutation waits its turn: offline, or behind mutations made offline.
            #[cfg(feature = "offline")]
            let on_the_wire = {
                let turn = policy.mutation.then(|| {
                    this.turn_to_send(
                        abort.as_ref(),
                        #[cfg(feature = "persist")]
                        || this.describe_held::<E>(&key, &args, body.as_ref()),
                    )
                });
                if let Some(turn) = &turn {
                    turn.await;
                }
                turn.as_ref().and_then(|turn| this.took_turn(turn))
            };
            let skipped =
                epoch != this.inner.epoch.load(Ordering::SeqCst) || abort.as_ref().is_some_and(Abort::is_aborted);
            if !skipped {
                this.dispatch(Action::Sent { key: &key });
            }
            let result = match skipped {
                true => None,
                false => this.send_with_retries(&endpoint, &key, &args, &body, &shared, &abort, epoch).await,
            };
            let timed_out = result.is_none() && !skipped;
            if timed_out {
                if let Some(abort) = &abort {
                    abort.abort();
                }
            }
            // A read counts from when it was sent; a mutation's answer from now
            // (or just before the next mutation sent after it).
            let fetched = if policy.mutation { this.inner.order.answered(sent, this.now()) } else { sent };
            // Out of flight and stored as one step: another thread sees the
            // request in flight or its answer, never neither.
            let storing = this.inner.gate.enter();
            if !policy.mutation {
                let mut keys = this.inner.keys.borrow_mut();
                let state = keys.get_mut(&key).filter(|k| k.inflight.as_ref().is_some_and(|s| Arc::ptr_eq(s, &shared)));
                if let Some(state) = state {
                    state.inflight = None;
                    keys::tidy(&mut keys, &key);
                    drop(keys);
                    this.touch_key(&key);
                }
            }
            if let Some(id) = layer {
                this.inner.layers.borrow_mut().retain(|l| l.id != id);
                this.write_base(|_| ());
            }
            let outcome = if epoch != this.inner.epoch.load(Ordering::SeqCst) {
                Err(FetchError::Reset)
            } else if skipped {
                Err(FetchError::Aborted)
            } else if let (None, Some(ms)) = (&result, policy.timeout_ms) {
                this.timed_out::<E>(&key, ms, policy.error_expiry_ms)
            } else if abort.as_ref().is_some_and(Abort::is_aborted) {
                Err(FetchError::Aborted)
            } else if let Some(result) = result {
                this.settle(&endpoint, &key, &args, fetched, result)
            } else {
                Err(FetchError::Aborted)
            };
            drop(storing);
            drop(active);
            this.changed();
            // Answered: the next held mutation may go.
            #[cfg(feature = "offline")]
            drop(on_the_wire);
            match &outcome {
                Ok(_) => this.dispatch(Action::Resolved { key: &key }),
                Err(FetchError::Reset | FetchError::Aborted) => {}
                Err(error) => this.dispatch(Action::Failed { key: &key, error }),
            }
            let erased = match outcome {
                Ok(out) => Ok(Arc::new(out) as Arc<dyn std::any::Any + Send + Sync>),
                Err(err) => Err(Arc::new(err) as Arc<dyn std::any::Any + Send + Sync>),
            };
            shared.resolve(erased);
        })
    }

    /// Puts a mutation's optimistic layer on the store, when the endpoint
    /// has one for it: its id.
    fn show_optimistic<E: Endpoint + Clone>(
        &self,
        endpoint: &E,
        key: &str,
        args: &Value,
        body: &Option<E::Body>,
        sent: order::Stamp,
    ) -> Option<u64> {
        self.with_state(|store| endpoint.optimistic(store, args, body.as_ref()))?;
        let (optimist, sent_args, sent_body) = (endpoint.clone(), args.clone(), body.clone());
        let value: crate::Optimistic =
            Arc::new(move |store| optimist.optimistic(store, &sent_args, sent_body.as_ref()));
        let id = self.next_id();
        let (key, schema, args) = (key.to_owned(), endpoint.schema(), args.clone());
        self.inner.layers.borrow_mut().push(Layer { id, key, schema, value, args, sent });
        self.write_base(|_| ());
        self.changed();
        Some(id)
    }

    /// Sends a request, and again after a failure while it is still wanted
    /// and the endpoint says when; `None` when it timed out.
    #[allow(clippy::too_many_arguments)]
    async fn send_with_retries<E: Endpoint + Clone>(
        &self,
        endpoint: &E,
        key: &str,
        args: &Value,
        body: &Option<E::Body>,
        shared: &Arc<Shared>,
        abort: &Option<Abort>,
        epoch: u64,
    ) -> Option<Result<E::Output, E::Error>> {
        let mut attempt = 0;
        loop {
            let request = endpoint.fetch_in(args, body.clone(), &self.fetch_context(abort.clone()));
            let result = match endpoint.policy().timeout_ms {
                Some(ms) => deadline::within(self.inner.timers.as_ref(), ms, request).await,
                None => Some(request.await),
            };
            let wait = match &result {
                Some(Err(error)) if self.still_wanted(key, shared, abort, epoch) => {
                    endpoint.retry_after(error, attempt, &self.fetch_context(abort.clone()))
                }
                _ => None,
            };
            let Some(ms) = wait else { return result };
            deadline::sleep(self.inner.timers.as_ref(), ms).await;
            if !self.still_wanted(key, shared, abort, epoch) {
                return result;
            }
            attempt += 1;
        }
    }

    /// Whether a failed request of `key` is still wanted, so worth trying
    /// again: the store was not reset, it was not aborted, and a mounted
    /// reader retains the key or a caller awaits the answer (`shared` beyond
    /// the request's own handle and the key's in-flight mark).
    fn still_wanted(&self, key: &str, shared: &Arc<Shared>, abort: &Option<Abort>, epoch: u64) -> bool {
        if epoch != self.inner.epoch.load(Ordering::SeqCst) || abort.as_ref().is_some_and(Abort::is_aborted) {
            return false;
        }
        let keys = self.inner.keys.borrow();
        let state = keys.get(key);
        let marked = state.and_then(|k| k.inflight.as_ref()).is_some_and(|s| Arc::ptr_eq(s, shared));
        let awaiting = Arc::strong_count(shared) > 1 + usize::from(marked);
        awaiting || state.is_some_and(|k| k.retained > 0)
    }

    /// Records that `key`'s request got no answer within `ms`.
    pub(super) fn timed_out<E: Endpoint>(
        &self,
        key: &str,
        ms: u64,
        expiry_ms: u64,
    ) -> Result<E::Output, FetchError<E::Error>> {
        let now = self.now();
        let error = FetchError::<E::Error>::Timeout { ms };
        let expires = now.saturating_add(expiry_ms);
        self.write_base(|base| base.set_error(key, error.to_string(), now, expires));
        self.set_typed_error(key, Arc::new(error.clone()));
        Err(error)
    }

    /// Writes a fetch's result or error into the base store.
    pub(super) fn settle<E: Endpoint>(
        &self,
        endpoint: &E,
        key: &str,
        args: &Value,
        fetched: order::Stamp,
        result: Result<E::Output, E::Error>,
    ) -> Result<E::Output, FetchError<E::Error>> {
        let now = self.now();
        let policy = endpoint.policy();
        match result {
            Ok(output) => {
                if let Some(value) = E::storable(&output).filter(|_| policy.data_expiry_ms > 0) {
                    let meta = WriteMeta {
                        fetched_at: fetched.at,
                        date: now,
                        expires_at: now.saturating_add(policy.data_expiry_ms),
                        seq: fetched.seq,
                    };
                    let schema = endpoint.schema();
                    // A lazy field reads back as its keys: the answer is given so.
                    let sent =
                        schema.as_ref().filter(|s| !is_one_entity(s) && s.has_lazy()).map(|s| (s, value.clone()));
                    // Known before the write is shared: another tab keeps it too.
                    keys::entry(&mut self.inner.keys.borrow_mut(), key).persist |= policy.persist;
                    let written =
                        self.write_base(|base| writes::write_result(base, key, schema.as_ref(), value, args, meta));
                    if let Err(err) = written {
                        let expires = now.saturating_add(policy.error_expiry_ms);
                        self.write_base(|base| base.set_error(key, err.to_string(), now, expires));
                        let error = FetchError::<E::Error>::Normalize(err);
                        self.set_typed_error(key, Arc::new(error.clone()));
                        return Err(error);
                    }
                    let stored = match sent {
                        Some((schema, sent)) => rdc_core::lazy_as_keys(schema, sent, args).ok(),
                        None => schema.as_ref().filter(|s| is_one_entity(s)).and_then(|s| self.stored_json(key, s)),
                    };
                    let mut keys = self.inner.keys.borrow_mut();
                    let state = keys::note_stored(&mut keys, key, schema, policy.persist);
                    // Storing the result cleared the key's error in the store.
                    state.typed_error = None;
                    if let Some(stored) = stored {
                        return Ok(E::read_back(output, stored));
                    }
                }
                Ok(output)
            }
            Err(error) => {
                let expires = now.saturating_add(policy.error_expiry_ms);
                self.write_base(|base| base.set_error(key, error.to_string(), now, expires));
                let error = FetchError::Endpoint(error);
                self.set_typed_error(key, Arc::new(error.clone()));
                Err(error)
            }
        }
    }

    /// Fetches only when the data is missing, invalid or stale (and nothing is
    /// in flight for it); resolves to `None` when no fetch was needed.
    ///
    /// # Errors
    /// As [`Controller::fetch`].
    pub fn fetch_if_stale<C: TypedEndpoint>(
        &self,
        endpoint: &C,
        args: C::Args,
    ) -> BoxFuture<Result<Option<C::Result>, FetchError<C::Error>>>
    where
        C::Body: Default,
    {
        let needed = match self.key_of(endpoint, &args) {
            Ok(key) => self.needs_fetch(&key, endpoint.endpoint().policy()),
            Err(_) => true,
        };
        let fetch = needed.then(|| self.fetch(endpoint, args, C::Body::default()));
        Box::pin(async move {
            match fetch {
                Some(fetch) => fetch.await.map(Some),
                None => Ok(None),
            }
        })
    }
}

impl Controller {
    /// The result stored under `key`, read through `schema` as JSON (`None`
    /// when it does not read: an entity deleted meanwhile).
    fn stored_json(&self, key: &str, schema: &Schema) -> Option<Value> {
        self.with_state(|state| rdc_core::denormalize::<Value>(state, schema, &state.result(key)?.value).ok()?)
    }
}

/// Whether results of `schema` are one entity (an entity, a union, or an
/// item a collection takes in): read back from the store, where the answer
/// merged into the entity, they are whole even when the answer was a part.
/// Lists and pages are not: a page reads back as the whole list (with lazy
/// fields, they are given as [`rdc_core::lazy_as_keys`] makes them).
fn is_one_entity(schema: &Schema) -> bool {
    match schema {
        Schema::Entity(_) | Schema::Union(_) => true,
        Schema::CollectionEdit(collection, _) => is_one_entity(collection.item()),
        Schema::Cyclic(make) => is_one_entity(&make()),
        _ => false,
    }
}

fn downcast<E: Endpoint>(outcome: shared::Outcome) -> Result<E::Output, FetchError<E::Error>> {
    match outcome {
        Ok(any) => any.downcast_ref::<E::Output>().cloned().ok_or(FetchError::Reset),
        Err(any) => Err(any.downcast_ref::<FetchError<E::Error>>().cloned().unwrap_or(FetchError::Reset)),
    }
}

/// The JSON args and the encoded body of a typed call.
type Encoded<C> = (Value, Option<<<C as TypedEndpoint>::Endpoint as Endpoint>::Body>);

/// Encodes a typed call's args and body.
fn encode<C: TypedEndpoint>(endpoint: &C, args: &C::Args, body: C::Body) -> Result<Encoded<C>, C::Error> {
    Ok((endpoint.encode_args(args)?, endpoint.encode_body(body)?))
}

/// `output` read as `endpoint`'s result once it resolves.
fn typed<C: TypedEndpoint>(
    endpoint: &C,
    output: BoxFuture<Result<<C::Endpoint as Endpoint>::Output, FetchError<C::Error>>>,
) -> BoxFuture<Result<C::Result, FetchError<C::Error>>> {
    let endpoint = endpoint.clone();
    Box::pin(async move { endpoint.decode_result(output.await?).map_err(FetchError::Endpoint) })
}
