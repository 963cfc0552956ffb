//! The casino's promotion draws, checked from its chain.

use crate::audit::CasinoEvent;
use crate::store::scan::Scan;

/// Each promotion's draw against the entries counted again from the log and
/// the draw made again from the revealed seed (`casino/promotions.rs`).
pub(super) fn check_promotions(
    scan: &Scan,
    published: &std::collections::BTreeMap<u32, (String, String)>,
    draws: &[(u64, CasinoEvent)],
) -> Vec<String> {
    let mut problems = Vec::new();
    for (seq, d) in draws {
        let CasinoEvent::PromotionDrawn { promotion, .. } = d else { continue };
        let at = format!("the casino's chain record {seq}");
        let Some((text, commitment)) = published.get(promotion) else {
            problems.push(format!("{at}: a draw of promotion {promotion}, which was never published"));
            continue;
        };
        let terms = match baccarat_rules::promotion::Terms::from_toml(text) {
            Ok(t) => t,
            Err(p) => {
                problems.push(format!("{at}: promotion {promotion}'s terms do not check: {p}"));
                continue;
            }
        };
        match crate::promotion_entries::entries_in(scan, &terms) {
            Ok(entries) => problems.extend(
                crate::casino::promotions::check_draw(&terms, commitment, d, &entries)
                    .into_iter()
                    .map(|p| format!("{at}: {p}")),
            ),
            Err(e) => problems.push(format!("{at}: the entries cannot be counted: {e}")),
        }
    }
    problems
}
