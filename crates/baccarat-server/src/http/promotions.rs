//! Promotion routes (NSW 16): the published promotions with their draw's
//! commitment and, once drawn, the seed and winners; an admin's publishing,
//! drawing and keeping of refused claims. The draw's entries are counted from
//! the audit log on a read connection (`promotion_entries.rs`), never taken
//! from a client.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use baccarat_rules::Money;
use serde::Deserialize;

use super::extract::{Auth, Body, Id};
use super::{call, limited, reply_json, require, ApiError, AppState};
use crate::auth::Role;
use crate::bodies::RefusedClaims;
use crate::casino::promotions::{PromotionView, RefusedClaim};
use crate::casino::{Reply, Request};

fn no_promotion(id: u32) -> ApiError {
    ApiError::new(axum::http::StatusCode::NOT_FOUND, "no_promotion", format!("no promotion {id}"))
}

/// Every promotion, as the public sees it.
pub(super) async fn list(State(s): State<AppState>) -> Json<Vec<PromotionView>> {
    let v = s.tournaments.read().expect("tournaments lock");
    Json(v.promotions.values().map(|p| p.public()).collect())
}

/// One promotion, with its terms as published (NSW 16.6).
pub(super) async fn one(State(s): State<AppState>, Id(id): Id) -> Result<Json<PromotionView>, ApiError> {
    let v = s.tournaments.read().expect("tournaments lock");
    let p = v.promotions.get(&id).ok_or_else(|| no_promotion(id))?;
    Ok(Json(PromotionView { terms: Some(p.state.terms.clone()), ..p.public() }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Publish {
    terms: String,
}

/// Admin: publish a promotion from its terms, before entries close.
pub(super) async fn create(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Body(b): Body<Publish>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    reply_json(call(&s, Request::CreatePromotion { terms: b.terms }).await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Draw {
    /// The scrutineer overseeing the draw (NSW 16.2), if not the terms' own.
    #[serde(default)]
    scrutineer: Option<String>,
}

/// Admin: draw, after its time, from the entries the audit log gives.
pub(super) async fn draw(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id,
    Body(b): Body<Draw>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    let terms = {
        let v = s.tournaments.read().expect("tournaments lock");
        v.promotions.get(&id).ok_or_else(|| no_promotion(id))?.terms.clone()
    };
    let db = s.db.clone();
    let entries = tokio::task::spawn_blocking(move || crate::promotion_entries::entries_of(&db, &terms))
        .await
        .map_err(|_| ApiError::internal("counting the entries failed"))?
        .map_err(|e| ApiError::internal(e.to_string()))?;
    reply_json(call(&s, Request::DrawPromotion { promotion: id, entries, scrutineer: b.scrutineer }).await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Claim {
    /// The prize's place in the draw's list of winners.
    prize: u32,
    #[serde(default)]
    cash_alternative: bool,
}

/// Admin (at the rewards desk): a winner claims a prize that is not cash, or
/// its cash alternative where the terms offer one (NSW 16.3, 16.7.8).
pub(super) async fn claim(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id,
    Body(b): Body<Claim>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    reply_json(
        call(&s, Request::ClaimPrize { promotion: id, prize: b.prize, cash_alternative: b.cash_alternative }).await?,
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Refused {
    claimant: String,
    address: String,
    value: Money,
    reasons: String,
}

/// Admin: keep a refused claim's details (NSW 16.9.1).
pub(super) async fn refuse(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id,
    Body(b): Body<Refused>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    let claim = RefusedClaim { claimant: b.claimant, address: b.address, value: b.value, reasons: b.reasons };
    reply_json(call(&s, Request::RefuseClaim { promotion: id, claim }).await?)
}

/// Admin and inspectors: the refused claims kept (NSW 16.9.1). Names and
/// addresses: not public.
pub(super) async fn refused(State(s): State<AppState>, Auth(sess, _): Auth, Id(id): Id) -> Result<Response, ApiError> {
    require(&sess, &[Role::Admin, Role::Inspector])?;
    let v = s.tournaments.read().expect("tournaments lock");
    let p = v.promotions.get(&id).ok_or_else(|| no_promotion(id))?;
    Ok(Json(RefusedClaims { promotion: id, refused: &p.state.refused }).into_response())
}
