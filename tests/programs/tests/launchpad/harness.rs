//! A started chain with the launchpad initialized and every preset x quote configured, plus helpers that
//! build real transactions through `launchpad-sdk`, send them, and decode the `emit_cpi!` events they emit.

use anchor_lang::prelude::{Clock, Pubkey};
use anchor_lang::solana_program::instruction::{error::InstructionError, Instruction};
use anchor_lang::solana_program::program_pack::Pack;
use anchor_lang::solana_program::system_instruction;
use anchor_spl::token::spl_token;
use anchor_spl::token_2022::spl_token_2022;
use curve::{Preset, QuoteAsset};
use launchpad::{LaunchpadError, Pool};
use sdk::amm_ix::AmmKeys;
use sdk::events::{decode_amm_event, decode_event, AmmEvent, LaunchpadEvent};
use sdk::launchpad_ix::{self as lix, CreateLaunchArgs, LaunchKeys, SwapArgs, SIDE_BUY, SIDE_SELL};
use sdk::{associated_token_address, ids};
use solana_keypair::Keypair;
use solana_program_test::{processor, ProgramTest, ProgramTestContext};
use solana_signer::Signer;
use solana_transaction::Transaction;
pub use solana_transaction_error::TransactionError;

/// A failed transaction: the error, and the program that raised it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxFailure {
    pub error: TransactionError,
    /// The innermost program whose log line says it failed (`Program <id> failed: ...`), i.e. the program
    /// that raised the error, a CPI's callee included; `None` when no program failed (the runtime refused
    /// the transaction).
    pub program: Option<Pubkey>,
}

pub type TxResult<T> = Result<T, TxFailure>;

/// The program that raised a failed transaction's error, from its log: the first `Program <id> failed`
/// line (a failing callee logs before each caller it fails).
fn failing_program(logs: &[String]) -> Option<Pubkey> {
    logs.iter().find_map(|line| {
        let rest = line.strip_prefix("Program ")?;
        let (id, tail) = rest.split_once(' ')?;
        tail.starts_with("failed")
            .then(|| id.parse().ok())
            .flatten()
    })
}

pub struct Env {
    pub ctx: ProgramTestContext,
    pub admin: Keypair,
    pub partner: Keypair,
    pub usdc_mint: Pubkey,
    pub usdc_authority: Keypair,
    /// When set, every transaction runs with the clock at this unix time.
    pub now: Option<i64>,
    /// AMM events of the last transaction sent.
    pub amm_events: Vec<AmmEvent>,
    salt: u64,
}

pub const SOL: u64 = 1_000_000_000;
pub const USDC: u64 = 1_000_000;

impl Env {
    /// A fresh chain: launchpad initialized (admin, partner), a local USDC mint, all six configs.
    pub async fn start() -> Env {
        let env = Self::start_bare().await;
        let mut env = env;
        for preset in Preset::ALL {
            for quote in QuoteAsset::ALL {
                let ix = lix::create_preset_config(
                    &env.admin.pubkey(),
                    preset,
                    quote,
                    &env.quote_mint(quote),
                )
                .unwrap();
                let admin = env.admin.insecure_clone();
                env.send(&[ix], &[&admin]).await.expect("create_config");
            }
        }
        env
    }

    /// A fresh chain with the launchpad initialized (by its upgrade authority, the admin) and a USDC mint, but
    /// no configs.
    pub async fn start_bare() -> Env {
        let mut env = Self::start_uninitialized().await;
        let admin = env.admin.insecure_clone();
        let ix = lix::initialize(
            &admin.pubkey(),
            &env.partner.pubkey(),
            &env.usdc_mint,
            Some(lix::program_data_address()),
        );
        env.send(&[ix], &[&admin]).await.expect("initialize");
        env
    }

    /// A fresh chain whose launchpad is owned by the upgradeable loader with the admin as its upgrade
    /// authority, a USDC mint, and nothing initialized.
    pub async fn start_uninitialized() -> Env {
        let mut env = Self::start_native().await;
        let admin = env.admin.pubkey();
        env.make_upgradeable(Some(admin));
        env
    }

    /// A fresh chain with both programs loaded natively (owned by the native loader), a USDC mint, nothing
    /// initialized.
    pub async fn start_native() -> Env {
        let mut pt = ProgramTest::new(
            "launchpad",
            launchpad::ID,
            processor!(localnet::launchpad_entry),
        );
        pt.prefer_bpf(false);
        pt.add_program("amm", amm::ID, processor!(localnet::amm_entry));
        pt.add_builtin_program(
            "upgradeable loader",
            anchor_lang::solana_program::bpf_loader_upgradeable::ID,
            localnet::upgradeable_loader,
        );
        let ctx = pt.start_with_context().await;
        let mut env = Env {
            ctx,
            admin: Keypair::new(),
            partner: Keypair::new(),
            usdc_mint: Pubkey::default(),
            usdc_authority: Keypair::new(),
            now: None,
            amm_events: Vec::new(),
            salt: 0,
        };
        let admin = env.admin.insecure_clone();
        env.airdrop(&admin.pubkey(), 100 * SOL).await;
        env.usdc_mint = env.create_usdc_mint().await;
        env
    }

    /// Makes the launchpad look deployed through the upgradeable loader, with `authority` as its upgrade
    /// authority (see `localnet::bootstrap::upgradeable_launchpad_accounts`). The runtime hands instructions of
    /// such a program to the loader's builtin, which runs only SBF code; `localnet::upgradeable_loader`,
    /// installed in its place at start, runs the launchpad's native entry instead.
    pub fn make_upgradeable(&mut self, authority: Option<Pubkey>) {
        for (address, account) in
            localnet::bootstrap::upgradeable_launchpad_accounts(authority).unwrap()
        {
            self.ctx.set_account(&address, &account.into());
        }
    }

    /// Stores an account owned by the upgradeable loader (rent exempt).
    pub fn set_loader_account(&mut self, address: &Pubkey, data: Vec<u8>, executable: bool) {
        let rent = anchor_lang::prelude::Rent::default();
        let account = solana_account::Account {
            lamports: rent.minimum_balance(data.len()),
            data,
            owner: anchor_lang::solana_program::bpf_loader_upgradeable::ID,
            executable,
            rent_epoch: 0,
        };
        self.ctx.set_account(address, &account.into());
    }

    pub fn quote_mint(&self, quote: QuoteAsset) -> Pubkey {
        match quote {
            QuoteAsset::Sol => ids::NATIVE_MINT,
            QuoteAsset::Usdc => self.usdc_mint,
        }
    }

    /// Sends `ixs` signed by `signers` (the first pays). The transaction is simulated first to collect its
    /// inner instructions (program-test does not return them from processing), then processed; the result is
    /// the processing result with the launchpad events in emission order.
    pub async fn send(
        &mut self,
        ixs: &[Instruction],
        signers: &[&Keypair],
    ) -> TxResult<Vec<LaunchpadEvent>> {
        let slot = self.ctx.banks_client.get_root_slot().await.unwrap();
        self.ctx.warp_to_slot(slot + 2).unwrap();
        if let Some(now) = self.now {
            let mut clock: Clock = self.ctx.banks_client.get_sysvar().await.unwrap();
            clock.unix_timestamp = now;
            self.ctx.set_sysvar(&clock);
        }
        let blockhash = self.ctx.banks_client.get_latest_blockhash().await.unwrap();
        let tx =
            Transaction::new_signed_with_payer(ixs, Some(&signers[0].pubkey()), signers, blockhash);
        let sim = self
            .ctx
            .banks_client
            .simulate_transaction(tx.clone())
            .await
            .unwrap();
        let mut events = Vec::new();
        self.amm_events.clear();
        if let Some(details) = &sim.simulation_details {
            for inner in details.inner_instructions.iter().flatten().flatten() {
                let program = tx.message.account_keys[inner.instruction.program_id_index as usize];
                if program == launchpad::ID {
                    events.extend(decode_event(&inner.instruction.data));
                } else if program == amm::ID {
                    self.amm_events
                        .extend(decode_amm_event(&inner.instruction.data));
                }
            }
        }
        let program = sim
            .simulation_details
            .as_ref()
            .and_then(|d| failing_program(&d.logs));
        match self.ctx.banks_client.process_transaction(tx).await {
            Ok(()) => Ok(events),
            Err(e) => Err(TxFailure {
                error: e.unwrap(),
                program,
            }),
        }
    }

    pub async fn airdrop(&mut self, to: &Pubkey, lamports: u64) {
        let payer = self.ctx.payer.insecure_clone();
        let ix = system_instruction::transfer(&payer.pubkey(), to, lamports);
        self.send(&[ix], &[&payer]).await.unwrap();
    }

    /// The partner's keypair, given 20 SOL to pay fees and rent of its claims.
    pub async fn funded_partner(&mut self) -> Keypair {
        let partner = self.partner.insecure_clone();
        self.airdrop(&partner.pubkey(), 20 * SOL).await;
        partner
    }

    /// A new wallet with 10 SOL for fees and rent.
    pub async fn wallet(&mut self) -> Keypair {
        let k = Keypair::new();
        self.airdrop(&k.pubkey(), 10 * SOL).await;
        k
    }

    async fn create_usdc_mint(&mut self) -> Pubkey {
        let authority = self.usdc_authority.pubkey();
        self.create_mint(&authority, 6).await
    }

    /// A classic SPL mint with `authority` as its mint authority.
    pub async fn create_mint(&mut self, authority: &Pubkey, decimals: u8) -> Pubkey {
        let mint = Keypair::new();
        let payer = self.ctx.payer.insecure_clone();
        let rent = self.ctx.banks_client.get_rent().await.unwrap();
        let ixs = [
            system_instruction::create_account(
                &payer.pubkey(),
                &mint.pubkey(),
                rent.minimum_balance(spl_token::state::Mint::LEN),
                spl_token::state::Mint::LEN as u64,
                &ids::TOKEN_PROGRAM,
            ),
            spl_token::instruction::initialize_mint2(
                &ids::TOKEN_PROGRAM,
                &mint.pubkey(),
                authority,
                None,
                decimals,
            )
            .unwrap(),
        ];
        self.send(&ixs, &[&payer, &mint]).await.unwrap();
        mint.pubkey()
    }

    /// A Token-2022 mint with `authority` as its mint authority and one extension: a 1% transfer fee, a
    /// transfer hook (into the AMM, any program will do), a permanent delegate, or non-transferable tokens.
    pub async fn create_token_2022_mint(
        &mut self,
        authority: &Pubkey,
        decimals: u8,
        extension: spl_token_2022::extension::ExtensionType,
    ) -> Pubkey {
        use spl_token_2022::extension::ExtensionType;
        let mint = Keypair::new();
        let payer = self.ctx.payer.insecure_clone();
        let rent = self.ctx.banks_client.get_rent().await.unwrap();
        let len =
            ExtensionType::try_calculate_account_len::<spl_token_2022::state::Mint>(&[extension])
                .unwrap();
        let program = ids::TOKEN_2022_PROGRAM;
        let key = mint.pubkey();
        let init_extension = match extension {
            ExtensionType::TransferFeeConfig => {
                spl_token_2022::extension::transfer_fee::instruction::initialize_transfer_fee_config(
                    &program,
                    &key,
                    Some(authority),
                    Some(authority),
                    100,
                    u64::MAX,
                )
            }
            ExtensionType::TransferHook => {
                spl_token_2022::extension::transfer_hook::instruction::initialize(
                    &program,
                    &key,
                    Some(*authority),
                    Some(amm::ID),
                )
            }
            ExtensionType::PermanentDelegate => {
                spl_token_2022::instruction::initialize_permanent_delegate(&program, &key, authority)
            }
            ExtensionType::NonTransferable => {
                spl_token_2022::instruction::initialize_non_transferable_mint(&program, &key)
            }
            other => panic!("no initializer for {other:?}"),
        }
        .unwrap();
        let ixs = [
            system_instruction::create_account(
                &payer.pubkey(),
                &key,
                rent.minimum_balance(len),
                len as u64,
                &program,
            ),
            init_extension,
            spl_token_2022::instruction::initialize_mint2(
                &program, &key, authority, None, decimals,
            )
            .unwrap(),
        ];
        self.send(&ixs, &[&payer, &mint]).await.unwrap();
        key
    }

    /// Gives `owner` `amount` of the quote token in their associated account and returns that account.
    pub async fn fund_quote(&mut self, owner: &Keypair, quote: QuoteAsset, amount: u64) -> Pubkey {
        let mint = self.quote_mint(quote);
        let ata = associated_token_address(&owner.pubkey(), &mint, &ids::TOKEN_PROGRAM);
        let payer = self.ctx.payer.insecure_clone();
        let mut ixs = vec![lix::create_ata_idempotent(
            &payer.pubkey(),
            &owner.pubkey(),
            &mint,
            &ids::TOKEN_PROGRAM,
        )];
        match quote {
            QuoteAsset::Sol => {
                ixs.push(system_instruction::transfer(&payer.pubkey(), &ata, amount));
                ixs.push(spl_token::instruction::sync_native(&ids::TOKEN_PROGRAM, &ata).unwrap());
                self.send(&ixs, &[&payer]).await.unwrap();
            }
            QuoteAsset::Usdc => {
                ixs.push(
                    spl_token::instruction::mint_to(
                        &ids::TOKEN_PROGRAM,
                        &mint,
                        &ata,
                        &self.usdc_authority.pubkey(),
                        &[],
                        amount,
                    )
                    .unwrap(),
                );
                let auth = self.usdc_authority.insecure_clone();
                self.send(&ixs, &[&payer, &auth]).await.unwrap();
            }
        }
        ata
    }

    /// Mints `amount` of a classic mint to `owner`'s associated account (created if needed).
    pub async fn mint_to(
        &mut self,
        mint: &Pubkey,
        authority: &Keypair,
        owner: &Pubkey,
        amount: u64,
    ) -> Pubkey {
        let payer = self.ctx.payer.insecure_clone();
        let ata = associated_token_address(owner, mint, &ids::TOKEN_PROGRAM);
        let ixs = [
            lix::create_ata_idempotent(&payer.pubkey(), owner, mint, &ids::TOKEN_PROGRAM),
            spl_token::instruction::mint_to(
                &ids::TOKEN_PROGRAM,
                mint,
                &ata,
                &authority.pubkey(),
                &[],
                amount,
            )
            .unwrap(),
        ];
        self.send(&ixs, &[&payer, authority]).await.unwrap();
        ata
    }

    pub fn next_salt(&mut self) -> u64 {
        self.salt += 1;
        self.salt
    }

    pub fn keys(
        &self,
        creator: &Pubkey,
        salt: u64,
        preset: Preset,
        quote: QuoteAsset,
    ) -> LaunchKeys {
        LaunchKeys::derive(*creator, salt, preset as u8, self.quote_mint(quote))
    }

    /// Launches a token; with `first_buy`, the creator's buy lands in the same transaction.
    pub async fn launch(
        &mut self,
        creator: &Keypair,
        preset: Preset,
        quote: QuoteAsset,
        first_buy: Option<u64>,
    ) -> TxResult<(LaunchKeys, Vec<LaunchpadEvent>)> {
        let salt = self.next_salt();
        self.launch_with_salt(creator, preset, quote, first_buy, salt)
            .await
    }

    /// [`Env::launch`] with a chosen salt (so a test can pick the mint's address, e.g. its order against the
    /// quote mint).
    pub async fn launch_with_salt(
        &mut self,
        creator: &Keypair,
        preset: Preset,
        quote: QuoteAsset,
        first_buy: Option<u64>,
        salt: u64,
    ) -> TxResult<(LaunchKeys, Vec<LaunchpadEvent>)> {
        let keys = self.keys(&creator.pubkey(), salt, preset, quote);
        let args = CreateLaunchArgs {
            name: format!("Token {salt}"),
            symbol: format!("TK{salt}"),
            uri: format!("https://example.org/meta/{salt}.json"),
            salt,
        };
        let mut ixs = vec![lix::create_launch(&keys, args)];
        if let Some(amount) = first_buy {
            ixs.push(lix::create_ata_idempotent(
                &creator.pubkey(),
                &creator.pubkey(),
                &keys.mint,
                &ids::TOKEN_2022_PROGRAM,
            ));
            ixs.push(lix::swap_with_ata(
                &keys,
                &creator.pubkey(),
                SwapArgs {
                    side: SIDE_BUY,
                    amount_in: amount,
                    min_amount_out: 0,
                },
            ));
        }
        let events = self.send(&ixs, &[creator]).await?;
        Ok((keys, events))
    }

    /// Sends a buy with the trader's token account created first (if needed).
    async fn send_buy(
        &mut self,
        keys: &LaunchKeys,
        trader: &Keypair,
        swap: Instruction,
    ) -> TxResult<Vec<LaunchpadEvent>> {
        let ata = lix::create_ata_idempotent(
            &trader.pubkey(),
            &trader.pubkey(),
            &keys.mint,
            &ids::TOKEN_2022_PROGRAM,
        );
        self.send(&[ata, swap], &[trader]).await
    }

    /// Buys through the trader's associated accounts (creating the token account if needed).
    pub async fn buy(
        &mut self,
        keys: &LaunchKeys,
        trader: &Keypair,
        amount_in: u64,
        min_out: u64,
    ) -> TxResult<Vec<LaunchpadEvent>> {
        let ix = lix::swap_with_ata(
            keys,
            &trader.pubkey(),
            SwapArgs {
                side: SIDE_BUY,
                amount_in,
                min_amount_out: min_out,
            },
        );
        self.send_buy(keys, trader, ix).await
    }

    pub async fn sell(
        &mut self,
        keys: &LaunchKeys,
        trader: &Keypair,
        amount_in: u64,
        min_out: u64,
    ) -> TxResult<Vec<LaunchpadEvent>> {
        let ix = lix::swap_with_ata(
            keys,
            &trader.pubkey(),
            SwapArgs {
                side: SIDE_SELL,
                amount_in,
                min_amount_out: min_out,
            },
        );
        self.send(&[ix], &[trader]).await
    }

    /// Buys exactly `amount_out` tokens for at most `max_in` quote (creating the token account if needed).
    pub async fn buy_exact_out(
        &mut self,
        keys: &LaunchKeys,
        trader: &Keypair,
        amount_out: u64,
        max_in: u64,
    ) -> TxResult<Vec<LaunchpadEvent>> {
        let ix = lix::swap_exact_out_with_ata(
            keys,
            &trader.pubkey(),
            lix::SwapExactOutArgs {
                side: SIDE_BUY,
                amount_out,
                max_amount_in: max_in,
            },
        );
        self.send_buy(keys, trader, ix).await
    }

    /// Sells for exactly `amount_out` quote (after the fee) with at most `max_in` tokens.
    pub async fn sell_exact_out(
        &mut self,
        keys: &LaunchKeys,
        trader: &Keypair,
        amount_out: u64,
        max_in: u64,
    ) -> TxResult<Vec<LaunchpadEvent>> {
        let ix = lix::swap_exact_out_with_ata(
            keys,
            &trader.pubkey(),
            lix::SwapExactOutArgs {
                side: SIDE_SELL,
                amount_out,
                max_amount_in: max_in,
            },
        );
        self.send(&[ix], &[trader]).await
    }

    pub async fn pool(&mut self, pool: &Pubkey) -> Pool {
        let acc = self
            .ctx
            .banks_client
            .get_account(*pool)
            .await
            .unwrap()
            .expect("pool exists");
        sdk::accounts::decode_pool(&acc.data).expect("pool decodes")
    }

    pub async fn config(&mut self, config: &Pubkey) -> launchpad::Config {
        let acc = self
            .ctx
            .banks_client
            .get_account(*config)
            .await
            .unwrap()
            .expect("config exists");
        sdk::accounts::decode_config(&acc.data).expect("config decodes")
    }

    /// Balance of a token account of either token program. A missing account, or one that is not a token
    /// account, fails the test: an empty vault and a missing one must not look the same.
    pub async fn balance(&mut self, account: &Pubkey) -> u64 {
        let acc = self
            .ctx
            .banks_client
            .get_account(*account)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("token account {account} does not exist"));
        spl_token_2022::extension::StateWithExtensions::<spl_token_2022::state::Account>::unpack(
            &acc.data,
        )
        .unwrap_or_else(|e| panic!("{account} is not a token account: {e}"))
        .base
        .amount
    }

    /// Balance of a token account that may not exist yet (0 then), e.g. before a wallet's first buy.
    pub async fn balance_or_zero(&mut self, account: &Pubkey) -> u64 {
        match self.ctx.banks_client.get_account(*account).await.unwrap() {
            None => 0,
            Some(_) => self.balance(account).await,
        }
    }

    pub fn base_ata(&self, keys: &LaunchKeys, owner: &Pubkey) -> Pubkey {
        associated_token_address(owner, &keys.mint, &ids::TOKEN_2022_PROGRAM)
    }

    pub fn quote_ata(&self, keys: &LaunchKeys, owner: &Pubkey) -> Pubkey {
        associated_token_address(owner, &keys.quote_mint, &ids::TOKEN_PROGRAM)
    }

    /// A launch's fee-shares account (the test fails if its creator role never shared the fees).
    pub async fn fee_shares(&mut self, keys: &LaunchKeys) -> launchpad::FeeShares {
        let acc = self
            .ctx
            .banks_client
            .get_account(keys.fee_shares())
            .await
            .unwrap()
            .expect("fee shares exist");
        sdk::accounts::decode_fee_shares(&acc.data).expect("fee shares decode")
    }

    /// Vault balances equal the pool's recorded reserves and unclaimed fees (and, when the creator fees are
    /// shared, every recipient's unclaimed credit).
    pub async fn assert_reconciled(&mut self, keys: &LaunchKeys) {
        let pool = self.pool(&keys.pool).await;
        let base = self.balance(&keys.base_vault).await;
        let quote = self.balance(&keys.quote_vault).await;
        let (shared_base, shared_quote) = if pool.fee_shared {
            let shares = self.fee_shares(keys).await;
            let used = &shares.slots[..shares.count as usize];
            (
                used.iter().map(|s| s.base_unclaimed).sum::<u64>(),
                used.iter().map(|s| s.quote_unclaimed).sum::<u64>(),
            )
        } else {
            (0, 0)
        };
        assert_eq!(
            base,
            pool.base_reserve + shared_base,
            "base vault vs base reserve + shared token credit"
        );
        assert_eq!(
            quote,
            pool.quote_reserve
                + pool.creator_fee_unclaimed
                + pool.partner_fee_unclaimed
                + pool.creator_surplus_unclaimed
                + pool.partner_surplus_unclaimed
                + shared_quote,
            "quote vault vs quote reserve + unclaimed fees + unclaimed surplus + shared credit"
        );
        if pool.status == launchpad::PoolStatus::Migrated {
            let amm = keys.amm_keys();
            self.assert_amm_reconciled(&amm).await;
        }
    }

    /// AMM vaults hold the reserves plus the fees not yet paid out.
    pub async fn assert_amm_reconciled(&mut self, keys: &AmmKeys) {
        let pool = self.amm_pool(&keys.pool).await;
        let a = self.balance(&keys.vault_a).await;
        let b = self.balance(&keys.vault_b).await;
        assert_eq!(
            a,
            pool.reserve_a + pool.fees_a_total - pool.fees_a_claimed,
            "AMM vault a"
        );
        assert_eq!(
            b,
            pool.reserve_b + pool.fees_b_total - pool.fees_b_claimed,
            "AMM vault b"
        );
    }

    pub async fn amm_pool(&mut self, pool: &Pubkey) -> sdk::accounts::AmmPool {
        let acc = self
            .ctx
            .banks_client
            .get_account(*pool)
            .await
            .unwrap()
            .expect("AMM pool exists");
        sdk::accounts::decode_amm_pool(&acc.data).expect("AMM pool decodes")
    }

    pub async fn position(&mut self, position: &Pubkey) -> sdk::accounts::Position {
        let acc = self
            .ctx
            .banks_client
            .get_account(*position)
            .await
            .unwrap()
            .expect("position exists");
        sdk::accounts::decode_position(&acc.data).expect("position decodes")
    }

    /// A whale buys the rest of the curve; returns the completing swap.
    pub async fn graduate(&mut self, keys: &LaunchKeys, quote: QuoteAsset) -> sdk::events::EvtSwap {
        let whale = self.wallet().await;
        self.fund_quote(&whale, quote, quote.threshold() * 2).await;
        let events = self
            .buy(keys, &whale, quote.threshold() * 2, 0)
            .await
            .unwrap();
        let s = swaps(&events).pop().unwrap();
        assert!(s.complete);
        s
    }

    pub async fn migrate(
        &mut self,
        keys: &LaunchKeys,
        migrator: &Keypair,
    ) -> TxResult<Vec<LaunchpadEvent>> {
        let ix = lix::migrate(keys, &migrator.pubkey());
        self.send(&[ix], &[migrator]).await
    }

    /// An exact-in AMM swap from `trader`'s associated accounts, with no minimum out.
    pub async fn amm_swap(
        &mut self,
        keys: &AmmKeys,
        trader: &Keypair,
        a_to_b: bool,
        amount_in: u64,
    ) -> TxResult<Vec<LaunchpadEvent>> {
        let ix = sdk::amm_ix::swap(
            keys,
            &trader.pubkey(),
            sdk::amm_ix::AmmSwapArgs {
                a_to_b,
                amount_in,
                min_amount_out: 0,
            },
        );
        self.send(&[ix], &[trader]).await
    }

    /// Creates `owner`'s associated token accounts for both AMM mints (idempotent).
    pub async fn ensure_amm_accounts(&mut self, keys: &AmmKeys, owner: &Keypair) {
        let ixs = [
            lix::create_ata_idempotent(
                &owner.pubkey(),
                &owner.pubkey(),
                &keys.mint_a,
                &keys.token_program_a,
            ),
            lix::create_ata_idempotent(
                &owner.pubkey(),
                &owner.pubkey(),
                &keys.mint_b,
                &keys.token_program_b,
            ),
        ];
        self.send(&ixs, &[owner]).await.unwrap();
    }
}

/// The transaction failed at instruction `ix` (its index in the transaction) with the custom error
/// `expected`, raised by `program` (a CPI's callee is the program that raised it). Launchpad and AMM codes
/// overlap (both count from 6000), and so do Anchor's across programs: the program is part of the error.
#[track_caller]
pub fn assert_code<T: std::fmt::Debug, E: Into<u32> + std::fmt::Debug + Copy>(
    program: &Pubkey,
    ix: u8,
    res: TxResult<T>,
    expected: E,
) {
    let failure = res.expect_err("expected the transaction to fail");
    assert_eq!(
        (&failure.error, failure.program),
        (
            &TransactionError::InstructionError(ix, InstructionError::Custom(expected.into())),
            Some(*program)
        ),
        "expected {expected:?} from {program} at instruction {ix}"
    );
}

/// The launchpad refused instruction `ix` with `expected`.
#[track_caller]
pub fn assert_error<T: std::fmt::Debug>(ix: u8, res: TxResult<T>, expected: LaunchpadError) {
    assert_code(&launchpad::ID, ix, res, expected)
}

/// The AMM refused instruction `ix` (or the CPI into it from instruction `ix`) with `expected`.
#[track_caller]
pub fn assert_amm_error<T: std::fmt::Debug>(ix: u8, res: TxResult<T>, expected: amm::AmmError) {
    assert_code(&amm::ID, ix, res, expected)
}

/// Anchor's and the token programs' error codes the tests expect by number.
pub const CONSTRAINT_HAS_ONE: u32 = 2001;
pub const CONSTRAINT_SEEDS: u32 = 2006;
pub const INVALID_PROGRAM_ID: u32 = 3008;
pub const ACCOUNT_NOT_INITIALIZED: u32 = 3012;
/// SPL Token's `InsufficientFunds` and `OwnerMismatch`.
pub const TOKEN_INSUFFICIENT_FUNDS: u32 = 1;
pub const TOKEN_OWNER_MISMATCH: u32 = 4;
/// Anchor's `ConstraintTokenMint`: a token account of another mint.
pub const CONSTRAINT_TOKEN_MINT: u32 = anchor_lang::error::ErrorCode::ConstraintTokenMint as u32;

/// An `init` of an account that already exists: the system program's allocation refuses it (solana-program-test
/// reports it as invalid instruction data).
pub fn assert_already_created<T: std::fmt::Debug>(res: TxResult<T>) {
    assert_eq!(
        res.expect_err("creating an existing account must fail")
            .error,
        TransactionError::InstructionError(0, InstructionError::InvalidInstructionData)
    );
}

pub fn swaps(events: &[LaunchpadEvent]) -> Vec<sdk::events::EvtSwap> {
    events
        .iter()
        .filter_map(|e| match e {
            LaunchpadEvent::Swap(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}
