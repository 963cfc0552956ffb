//! Seeding a shoe: an RNG table's next shoe comes from the OS's entropy, is
//! shuffled by the recorded algorithm and cut at a random place within the
//! profile's rules (NSW 4.5-4.6; AU 7.6), and burns as the profile says.

use baccarat_core::TableId;
use baccarat_table::{shuffled, CutRules};
use baccarat_table::{Command, ShoeSource};

use super::{no_table, Casino, Code, Mode, Reply};

impl Casino {
    pub(super) fn new_shoe_command(&self, table: TableId) -> Result<Command, Reply> {
        let t = self.tables.get(&table).ok_or_else(|| no_table(table))?;
        if t.mode == Mode::Live {
            return Err(Reply::refused(
                Code::Mode,
                "a live table's shoe is started from the pit console with its cards",
            ));
        }
        let seed = baccarat_core::os_seed().map_err(|message| Reply::refused(Code::Entropy, message.to_string()))?;
        let setup = t.engine.setup();
        let decks = setup.config.decks;
        let (_, mut stream) = shuffled(decks, &seed);
        let cut = CutRules::from_profile(&setup.rulebook.config).random(
            &mut stream,
            52 * decks as usize,
            t.cutting_card_from_back,
        );
        let burn = setup.rulebook.procedures.burn.first().copied();
        Ok(Command::StartShoe { source: ShoeSource::Shuffle { seed }, cut: Some(cut), burn, show_burn: false })
    }
}
