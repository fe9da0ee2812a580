//! One controller used from many threads at once (as a server renders a page
//! on a multi-threaded runtime): requests still deduplicate, waiters are woken,
//! listeners end on what the store holds, ids and stamps stay unique, and
//! nothing deadlocks. Every test runs under a watchdog: a hang fails it.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::{Duration, Instant};

use rdc_controller::{Abort, BoxFuture, Controller, Endpoint, FakeTime, Policy, Spawn};
use rdc_core::json::{json, Value};
use rdc_core::Schema;

/// Runs `test` on its own thread; fails when it takes longer than `limit` (a deadlock).
fn watchdog(limit: Duration, test: impl FnOnce() + Send + 'static) {
    let (done, finished) = std::sync::mpsc::channel();
    let runner = std::thread::spawn(move || {
        test();
        let _ = done.send(());
    });
    match finished.recv_timeout(limit) {
        Ok(()) => runner.join().unwrap(),
        // The test panicked: its panic fails this one.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => std::panic::resume_unwind(runner.join().unwrap_err()),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("no end after {limit:?}: a deadlock or a lost wakeup")
        }
    }
}

/// Wakes a thread parked in `block_on`.
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Polls `future` on this thread, parking between wakes (a lost wakeup parks forever).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}

/// Each task on a thread of its own; counts them (a request is one, spawned
/// as the fetch that sends it is called).
#[derive(Clone, Default)]
struct Threads(Arc<AtomicUsize>);

impl Spawn for Threads {
    fn spawn(&self, future: BoxFuture<()>) {
        self.0.fetch_add(1, Ordering::SeqCst);
        std::thread::spawn(move || block_on(future));
    }
}

/// Answers once opened; counts its requests.
#[derive(Clone, Default)]
struct Gated {
    requests: Arc<AtomicUsize>,
    /// Whether it answers, and the requests waiting for that.
    open: Arc<Mutex<(bool, Vec<Waker>)>>,
}

impl Gated {
    fn open(&self) {
        let waiting = {
            let mut open = self.open.lock().unwrap();
            open.0 = true;
            std::mem::take(&mut open.1)
        };
        waiting.into_iter().for_each(Waker::wake);
    }
}

struct Answer(Arc<Mutex<(bool, Vec<Waker>)>>);

impl Future for Answer {
    type Output = Result<Value, String>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut open = self.0.lock().unwrap();
        if open.0 {
            return Poll::Ready(Ok(json!({ "id": "1", "name": "Ada" })));
        }
        open.1.push(cx.waker().clone());
        Poll::Pending
    }
}

impl Endpoint for Gated {
    type Output = Value;
    type Error = String;
    type Body = Value;
    fn key(&self, args: &Value) -> Result<String, String> {
        Ok(match args.get("id") {
            Some(id) => format!("GET /items/{id}"),
            None => "GET /me".into(),
        })
    }
    fn schema(&self) -> Option<Schema> {
        None
    }
    fn policy(&self) -> Policy {
        Policy::default()
    }
    fn is_soft(&self, _: &String) -> bool {
        false
    }
    fn fetch(&self, _: &Value, _: Option<Value>) -> BoxFuture<Result<Value, String>> {
        self.requests.fetch_add(1, Ordering::SeqCst);
        Box::pin(Answer(Arc::clone(&self.open)))
    }
    fn storable(v: &Value) -> Option<Value> {
        Some(v.clone())
    }
}

fn controller() -> Controller {
    controller_on(Threads::default())
}

fn controller_on(tasks: Threads) -> Controller {
    let time = FakeTime::default();
    Controller::new(time.clone(), time, tasks)
}

#[test]
fn the_futures_of_fetch_and_fetch_if_stale_are_send() {
    fn send<T: Send>(_: &T) {}
    let (c, endpoint) = (controller(), Gated::default());
    send(&c.fetch(&endpoint, json!(null), None));
    send(&c.fetch_if_stale(&endpoint, json!(null)));
    endpoint.open();
}

#[test]
fn identical_fetches_from_eight_threads_make_one_request_and_every_caller_gets_its_value() {
    watchdog(Duration::from_secs(60), || {
        for _ in 0..300 {
            let (tasks, endpoint) = (Threads::default(), Gated::default());
            let c = controller_on(tasks.clone());
            let (start, asked) = (Arc::new(Barrier::new(8)), Arc::new(Barrier::new(9)));
            let callers: Vec<_> = (0..8)
                .map(|_| {
                    let (c, endpoint, start, asked) = (c.clone(), endpoint.clone(), start.clone(), asked.clone());
                    std::thread::spawn(move || {
                        start.wait();
                        let waits: Vec<_> = (0..20).map(|_| c.fetch(&endpoint, json!(null), None)).collect();
                        asked.wait();
                        waits.into_iter().map(block_on).filter(|out| out.as_ref().unwrap()["name"] == "Ada").count()
                    })
                })
                .collect();
            asked.wait();
            assert_eq!(tasks.0.load(Ordering::SeqCst), 1, "identical reads on two threads both sent a request");
            endpoint.open();
            for caller in callers {
                assert_eq!(caller.join().unwrap(), 20);
            }
            assert_eq!(endpoint.requests.load(Ordering::SeqCst), 1);
        }
    });
}

#[test]
fn listeners_end_on_what_the_store_holds_after_writes_and_reads_from_four_threads() {
    watchdog(Duration::from_secs(60), || {
        let c = controller();
        let endpoint = Gated::default();
        let seen: Vec<Arc<AtomicU64>> = (0..4).map(|_| Arc::new(AtomicU64::new(u64::MAX))).collect();
        let ids: Vec<u64> = seen
            .iter()
            .map(|seen| {
                let (reader, seen, endpoint) = (c.clone(), Arc::clone(seen), endpoint.clone());
                c.listen_reads(move || {
                    let value = reader.read::<_, Value>(&endpoint, &json!(null)).ok().and_then(|r| r.data);
                    seen.store(value.and_then(|v| v["n"].as_u64()).unwrap_or(u64::MAX), Ordering::SeqCst);
                })
            })
            .collect();
        let until = Instant::now() + Duration::from_secs(1);
        let next = Arc::new(AtomicU64::new(0));
        let writers: Vec<_> = (0..4)
            .map(|thread| {
                let (c, next, endpoint) = (c.clone(), next.clone(), Gated::default());
                std::thread::spawn(move || {
                    let mut listening = Vec::new();
                    while Instant::now() < until {
                        let n = next.fetch_add(1, Ordering::SeqCst);
                        c.set_response(&endpoint, &json!(null), json!({ "n": n })).unwrap();
                        let _ = c.read::<_, Value>(&endpoint, &json!(null));
                        // Listeners come and go meanwhile.
                        if thread % 2 == 0 {
                            listening.push(c.listen_reads({
                                let (reader, endpoint) = (c.clone(), endpoint.clone());
                                move || {
                                    let _ = reader.read::<_, Value>(&endpoint, &json!(null));
                                }
                            }));
                            if listening.len() > 8 {
                                c.unlisten(listening.remove(0));
                            }
                        }
                    }
                    listening.into_iter().for_each(|id| c.unlisten(id));
                })
            })
            .collect();
        writers.into_iter().for_each(|writer| writer.join().unwrap());
        let fresh = c.read::<_, Value>(&Gated::default(), &json!(null)).unwrap().data.unwrap()["n"].as_u64();
        for seen in &seen {
            assert_eq!(Some(seen.load(Ordering::SeqCst)), fresh, "a listener missed the last write");
        }
        assert_eq!(c.listener_count(), ids.len(), "listeners added and removed on threads left some behind");
        // Still woken by a later write (each listener's reads were recorded on its own run).
        c.set_response(&Gated::default(), &json!(null), json!({ "n": 1_000_000 })).unwrap();
        for seen in &seen {
            assert_eq!(seen.load(Ordering::SeqCst), 1_000_000);
        }
    });
}

#[test]
fn ids_and_write_stamps_stay_unique_and_increasing_across_threads() {
    watchdog(Duration::from_secs(60), || {
        let c = controller();
        let per_thread: Vec<_> = (0..4)
            .map(|_| {
                let c = c.clone();
                std::thread::spawn(move || {
                    let endpoint = Gated::default();
                    (0..2_000)
                        .map(|_| {
                            let id = c.listen(|| ());
                            c.unlisten(id);
                            // Each write a key of its own: its stamp stays in the store.
                            let args = json!({ "id": id });
                            c.set_response(&endpoint, &args, json!({ "id": id })).unwrap();
                            let key = format!("GET /items/{id}");
                            (id, c.with_state(|store| store.result(&key).map(|r| r.meta.seq)).unwrap())
                        })
                        .collect::<Vec<(u64, u64)>>()
                })
            })
            .collect();
        let (mut ids, mut stamps): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
        for made in per_thread {
            let made = made.join().unwrap();
            assert!(made.windows(2).all(|w| w[0].0 < w[1].0), "ids on one thread go up");
            assert!(made.windows(2).all(|w| w[0].1 < w[1].1), "write stamps on one thread go up");
            ids.extend(made.iter().map(|m| m.0));
            stamps.extend(made.iter().map(|m| m.1));
        }
        for (what, mut all) in [("id", ids), ("write stamp", stamps)] {
            let count = all.len();
            all.sort_unstable();
            all.dedup();
            assert_eq!(all.len(), count, "two threads got the same {what}");
        }
    });
}

#[test]
fn an_abort_racing_on_abort_always_runs_the_callback() {
    watchdog(Duration::from_secs(60), || {
        for _ in 0..5_000 {
            let (abort, ran) = (Abort::default(), Arc::new(AtomicBool::new(false)));
            let aborter = {
                let abort = abort.clone();
                std::thread::spawn(move || abort.abort())
            };
            let flag = Arc::clone(&ran);
            abort.on_abort(move || flag.store(true, Ordering::SeqCst));
            aborter.join().unwrap();
            assert!(ran.load(Ordering::SeqCst), "aborted meanwhile and the callback never ran");
        }
    });
}

#[test]
fn a_write_returns_after_its_listeners_ran_while_another_thread_runs_listeners() {
    // A server renders from what a fetch wrote as soon as the fetch resolves:
    // a list's rows (set by a listener) must be current by then, even when
    // another thread is running the controller's listeners at that moment.
    watchdog(Duration::from_secs(30), || {
        let c = controller();
        let (entered_tx, entered) = std::sync::mpsc::channel::<()>();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let released = Mutex::new(Some(released));
        // The first listener blocks the thread running it (thread A), once.
        c.listen(move || {
            if let Some(released) = released.lock().unwrap().take() {
                let _ = entered_tx.send(());
                let _ = released.recv();
            }
        });
        let (reader, seen) = (c.clone(), Arc::new(AtomicU64::new(0)));
        let last = Arc::clone(&seen);
        c.listen(move || {
            let value = reader.read::<_, Value>(&Gated::default(), &json!(null)).ok().and_then(|r| r.data);
            last.store(value.and_then(|v| v["n"].as_u64()).unwrap_or(0), Ordering::SeqCst);
        });
        let a = {
            let c = c.clone();
            std::thread::spawn(move || c.set_response(&Gated::default(), &json!(null), json!({ "n": 1 })).unwrap())
        };
        entered.recv().unwrap();
        let b = {
            let (c, seen) = (c.clone(), Arc::clone(&seen));
            std::thread::spawn(move || {
                c.set_response(&Gated::default(), &json!(null), json!({ "n": 2 })).unwrap();
                seen.load(Ordering::SeqCst)
            })
        };
        // Let thread B reach its write while A still runs listeners, then let A go on.
        std::thread::sleep(Duration::from_millis(100));
        release.send(()).unwrap();
        a.join().unwrap();
        assert_eq!(b.join().unwrap(), 2, "thread B's write returned before the listener it woke had read it");
    });
}

#[test]
fn a_write_from_another_thread_during_a_readers_first_run_wakes_it_again() {
    // A server sets up a list's reader while the fetch it waits for lands on
    // another worker: the write must not fall between the reader's first read
    // and the recording of what it read.
    watchdog(Duration::from_secs(30), || {
        let c = controller();
        let (reading_tx, reading) = std::sync::mpsc::channel::<()>();
        let (written, written_rx) = std::sync::mpsc::channel::<()>();
        let written_rx = Mutex::new(Some(written_rx));
        let (reader, seen) = (c.clone(), Arc::new(AtomicU64::new(0)));
        let last = Arc::clone(&seen);
        let writer = {
            let c = c.clone();
            std::thread::spawn(move || {
                reading.recv().unwrap();
                c.set_response(&Gated::default(), &json!(null), json!({ "n": 7 })).unwrap();
                let _ = written.send(());
            })
        };
        c.listen_reads(move || {
            let value = reader.read::<_, Value>(&Gated::default(), &json!(null)).ok().and_then(|r| r.data);
            last.store(value.and_then(|v| v["n"].as_u64()).unwrap_or(0), Ordering::SeqCst);
            // The first run: the other thread writes after this read, before the run ends.
            if let Some(written_rx) = written_rx.lock().unwrap().take() {
                reading_tx.send(()).unwrap();
                written_rx.recv().unwrap();
            }
        });
        writer.join().unwrap();
        assert_eq!(seen.load(Ordering::SeqCst), 7, "the reader missed a write made during its first run");
    });
}

/// A clock that runs a hook (once) at its next reading: a way into the moment
/// a request's answer is being stored, which reads the clock first.
#[derive(Clone, Default)]
struct Hooked {
    time: FakeTime,
    next: Arc<Mutex<Option<Box<dyn FnOnce() + Send>>>>,
}

impl rdc_controller::Clock for Hooked {
    fn now(&self) -> u64 {
        let hook = self.next.lock().unwrap().take();
        if let Some(hook) = hook {
            hook();
        }
        rdc_controller::Clock::now(&self.time)
    }
}

#[test]
fn another_thread_sees_a_key_in_flight_or_answered_never_neither() {
    // A server's page re-reads a key on another worker while its answer is
    // being stored: it must see the request still in flight or its answer,
    // never neither (then it would send the request again, or read an error).
    watchdog(Duration::from_secs(30), || {
        let (clock, endpoint) = (Hooked::default(), Gated::default());
        let c = Controller::new(clock.clone(), clock.time.clone(), Threads::default());
        let fetch = c.fetch(&endpoint, json!(null), None);
        while endpoint.requests.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        let other: Arc<Mutex<Option<std::thread::JoinHandle<(bool, bool)>>>> = Arc::default();
        let (c2, endpoint2, slot) = (c.clone(), endpoint.clone(), Arc::clone(&other));
        *clock.next.lock().unwrap() = Some(Box::new(move || {
            let (done, looked) = std::sync::mpsc::channel();
            *slot.lock().unwrap() = Some(std::thread::spawn(move || {
                let fetching = c2.is_fetching("GET /me");
                let answered = c2.read::<_, Value>(&endpoint2, &json!(null)).ok().and_then(|r| r.data).is_some();
                let _ = block_on(c2.fetch_if_stale(&endpoint2, json!(null)));
                let _ = done.send(());
                (fetching, answered)
            }));
            // Long enough for the other thread to look now, if it can.
            let _ = looked.recv_timeout(Duration::from_millis(300));
        }));
        endpoint.open();
        assert_eq!(block_on(fetch).unwrap()["name"], "Ada");
        let (fetching, answered) =
            other.lock().unwrap().take().expect("the answer was stored without reading the clock").join().unwrap();
        assert!(fetching || answered, "another thread saw the key neither in flight nor answered");
        assert_eq!(endpoint.requests.load(Ordering::SeqCst), 1, "another thread sent the request again");
    });
}
