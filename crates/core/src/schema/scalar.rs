//! `Scalar`: entity fields whose values depend on the endpoint's args (a
//! "lens", such as a portfolio or a currency), after data-client's `Scalar`.
//!
//! An entity's scalar fields are not stored on the entity. Each value goes to
//! a cell of the scalar's own table, keyed by the entity's type, its pk and
//! the lens the write's args give (`Company,1,A`); the entity's member holds
//! only the key of its cells (`Company,1`). A read given args fills the
//! fields from the cells of the lens those args give, so readers of the same
//! entity through two lenses each see their own values and share the rest.

use std::sync::{Arc, Mutex, OnceLock};

use serde::de::DeserializeOwned;

use super::{Entity, EntityDef, FieldError, Schema};
use crate::json::Value;

/// A lens-dependent kind of entity field: its name (the key of its table) and
/// how a request's args choose the lens. Declare one per kind of lens and
/// name it on each such field with `#[entity(scalar = "..")]`; the field's
/// Rust type is the plain value.
///
/// A read of a field needs the lens: reads of an endpoint's result get it
/// from the args the result was fetched with. A read without args (a read of
/// an entity by its pk) or whose args give no lens, or a lens with no cell for
/// the entity yet, reads an `Option` field as `None`; a field that is no
/// `Option` then fails with an error naming the scalar. A write whose args
/// give no lens leaves its scalar values out (the cells keep theirs) and
/// writes the rest; a columns answer with no lens has nothing else and is
/// refused.
///
/// ```
/// use rdc_core::{json, Entity, MemoCache, Scalar, Schema, State, WriteMeta};
///
/// #[derive(serde::Deserialize)]
/// struct PortfolioArgs { portfolio: String }
///
/// fn portfolio() -> Scalar {
///     Scalar::new("portfolio", |args: &PortfolioArgs| Some(args.portfolio.clone()))
/// }
///
/// #[derive(Debug, serde::Deserialize, Entity)]
/// struct Company {
///     id: String,
///     price: f64,
///     #[entity(scalar = "portfolio()")]
///     shares: Option<u32>,
/// }
///
/// let mut state = State::default();
/// let list = Schema::array(Company::schema());
/// let (a, b) = (json!({ "portfolio": "A" }), json!({ "portfolio": "B" }));
/// state.write_result("companies A", &list, json!([{ "id": "1", "price": 9.5, "shares": 10 }]), &a, WriteMeta::at(0, 1000))?;
/// state.write_result("companies B", &list, json!([{ "id": "1", "price": 9.5, "shares": 70 }]), &b, WriteMeta::at(1, 1000))?;
/// let mut memo = MemoCache::default();
/// let in_a = memo.read_result_with::<Vec<Company>>(&state, "companies A", &list, &a)?.unwrap();
/// let in_b = memo.read_result_with::<Vec<Company>>(&state, "companies B", &list, &b)?.unwrap();
/// assert_eq!((in_a[0].shares, in_b[0].shares), (Some(10), Some(70)));
/// assert_eq!(in_a[0].price, in_b[0].price);
/// // Without args there is no lens: the field reads `None`.
/// assert_eq!(memo.entity::<Company>(&state, "1")?.unwrap().shares, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Scalar {
    /// The scalar's name (`portfolio`).
    key: &'static str,
    /// The table of its cells.
    pub(crate) def: &'static EntityDef,
    lens: Arc<dyn Fn(&Value) -> Option<String> + Send + Sync>,
}

impl std::fmt::Debug for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Scalar({})", self.key)
    }
}

/// Where a [`Scalar`] is used: a field of an entity, or (bound to an entity
/// type) the whole value, an object of the entity's scalar fields.
///
/// ```
/// # #[derive(serde::Deserialize)] struct In { portfolio: String }
/// fn portfolio() -> rdc_core::Scalar {
///     rdc_core::Scalar::new("portfolio", |args: &In| Some(args.portfolio.clone()))
/// }
/// #[derive(serde::Deserialize, rdc_core::Entity)]
/// struct Company { id: String, #[entity(scalar = "portfolio()")] pct: f64 }
///
/// // The columns of a portfolio, keyed by pk: a `Schema::Scalar`.
/// let columns = portfolio().bound_to::<Company>();
/// assert!(matches!(columns, rdc_core::Schema::Scalar(_)));
/// ```
#[derive(Debug, Clone)]
pub struct ScalarSchema {
    pub(crate) scalar: Scalar,
    pub(crate) place: Place,
}

/// See [`ScalarSchema`].
#[derive(Debug, Clone)]
pub(crate) enum Place {
    /// The field `name` of the entity being normalized, checked by `check`.
    Field { name: &'static str, check: fn(&Value) -> Result<(), FieldError> },
    /// The scalar fields of entity `def`, keyed by the entity's pk.
    Columns(&'static EntityDef),
}

impl Scalar {
    /// A scalar named `key` (its cells' table is `Scalar(key)`), whose lens a
    /// request's args give through `lens`: the args, read as `A` (the
    /// endpoint's args type), to a lens value; `None` (or args that do not
    /// read as `A`) is no lens.
    ///
    /// ```
    /// # #[derive(serde::Deserialize)] struct PortfolioArgs { portfolio: String }
    /// let scalar = rdc_core::Scalar::new("portfolio", |args: &PortfolioArgs| Some(args.portfolio.clone()));
    /// assert_eq!(scalar.lens(&rdc_core::json!({ "portfolio": "A" })).as_deref(), Some("A"));
    /// assert_eq!(scalar.lens(&rdc_core::json!(null)), None);
    /// ```
    pub fn new<A: DeserializeOwned>(
        key: &'static str,
        lens: impl Fn(&A) -> Option<String> + Send + Sync + 'static,
    ) -> Scalar {
        let lens = move |args: &Value| crate::deserialize_at::<A>(args).ok().and_then(|args| lens(&args));
        Scalar { key, def: cell_def(key), lens: Arc::new(lens) }
    }

    /// The scalar's name.
    ///
    /// ```
    /// let scalar = rdc_core::Scalar::new("currency", |c: &String| Some(c.clone()));
    /// assert_eq!(scalar.key(), "currency");
    /// ```
    pub fn key(&self) -> &'static str {
        self.key
    }

    /// The lens `args` (an endpoint's args, as JSON) give.
    ///
    /// ```
    /// let scalar = rdc_core::Scalar::new("currency", |c: &String| Some(c.clone()));
    /// assert_eq!(scalar.lens(&rdc_core::json!("EUR")).as_deref(), Some("EUR"));
    /// ```
    pub fn lens(&self, args: &Value) -> Option<String> {
        (self.lens)(args)
    }

    /// The schema of entity field `name` of type `T` (what
    /// `#[entity(scalar = "..")]` generates): its value goes to the cell of
    /// the entity in the write's lens, checked as a `T`.
    ///
    /// ```
    /// # let scalar = rdc_core::Scalar::new("currency", |c: &String| Some(c.clone()));
    /// let schema = scalar.field::<f64>("price");
    /// assert_eq!(format!("{schema:?}"), "Scalar(currency).price");
    /// ```
    pub fn field<T: DeserializeOwned>(&self, name: &'static str) -> Schema {
        let check = |value: &Value| crate::deserialize_at::<T>(value).map(|_| ());
        Schema::Scalar(Arc::new(ScalarSchema { scalar: self.clone(), place: Place::Field { name, check } }))
    }

    /// The schema of the value of an endpoint answering only `E`'s fields of
    /// this scalar (the "columns" of one lens), keyed by `E`'s pk: use it in
    /// [`Schema::values`]. It writes the cells of the write's lens and leaves
    /// the entities as they are; members that are no such field of `E` are
    /// left out. It reads as the cells of the read's lens (JSON objects).
    ///
    /// ```
    /// use rdc_core::{json, Entity, Scalar, Schema, State, WriteMeta};
    /// # #[derive(serde::Deserialize)] struct PortfolioArgs { portfolio: String }
    /// fn portfolio() -> Scalar { Scalar::new("portfolio", |a: &PortfolioArgs| Some(a.portfolio.clone())) }
    /// #[derive(Debug, serde::Deserialize, Entity)]
    /// struct Company { id: String, #[entity(scalar = "portfolio()")] shares: Option<u32> }
    ///
    /// let columns = Schema::values(portfolio().bound_to::<Company>());
    /// let mut state = State::default();
    /// let args = json!({ "portfolio": "A" });
    /// state.write_result("columns A", &columns, json!({ "1": { "shares": 10 } }), &args, WriteMeta::at(0, 1000))?;
    /// assert!(state.entity("Company", "1").is_none(), "no company written");
    /// assert!(state.entity("Scalar(portfolio)", "Company,1,A").is_some());
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    pub fn bound_to<E: Entity>(&self) -> Schema {
        Schema::Scalar(Arc::new(ScalarSchema { scalar: self.clone(), place: Place::Columns(E::DEF) }))
    }
}

impl ScalarSchema {
    /// The scalar.
    pub(crate) fn scalar(&self) -> &Scalar {
        &self.scalar
    }
}

impl std::fmt::Display for ScalarSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.place {
            Place::Field { name, .. } => write!(f, "Scalar({}).{name}", self.scalar.key),
            Place::Columns(def) => write!(f, "Scalar({})[{}]", self.scalar.key, def.key),
        }
    }
}

/// The key an entity's member holds: where its cells are (the type key and
/// pk, joined as a composite key).
pub(crate) fn cells_of(entity: &str, pk: &str) -> String {
    super::composite_pk([entity, pk])
}

/// The pk of the cell of `cells` (see [`cells_of`]) in `lens`.
pub(crate) fn cell_pk(cells: &str, lens: &str) -> String {
    format!("{cells},{}", super::composite_pk([lens]))
}

/// The (one per name) table of a scalar's cells: a cell holds the scalar
/// fields of one entity in one lens, each write laying its fields over the
/// cell's (checked as they are normalized: the table checks nothing more).
fn cell_def(key: &'static str) -> &'static EntityDef {
    type Defs = crate::json::FastMap<&'static str, &'static EntityDef>;
    static DEFS: OnceLock<Mutex<Defs>> = OnceLock::new();
    let defs = DEFS.get_or_init(Mutex::default);
    let mut defs = defs.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    defs.entry(key).or_insert_with(|| {
        // One small allocation per scalar name, for the life of the program.
        let table: &'static str = Box::leak(format!("Scalar({key})").into_boxed_str());
        Box::leak(Box::new(EntityDef {
            default_merge: true,
            ..EntityDef::internal_table(table, |existing, incoming| existing.overlaid(incoming))
        }))
    })
}
