//! Transactions on the chain: sanitized against the bank, simulated, processed (recorded with their logs,
//! inner instructions and token balances, and broadcast), airdrops, statuses and fees.

use super::*;

impl Chain {
    fn sanitize(
        &self,
        tx: VersionedTransaction,
        verify_signatures: bool,
    ) -> Result<
        solana_runtime_transaction::runtime_transaction::RuntimeTransaction<
            solana_transaction::sanitized::SanitizedTransaction,
        >,
        TransactionError,
    > {
        use solana_transaction::TransactionVerificationMode as Mode;
        let mode = if verify_signatures {
            Mode::FullVerification
        } else {
            Mode::HashOnly
        };
        self.bank.verify_transaction(tx, mode)
    }

    /// Runs `tx` without committing it.
    pub fn simulate(
        &self,
        tx: VersionedTransaction,
        verify_signatures: bool,
    ) -> Result<TransactionSimulationResult, TransactionError> {
        let sanitized = self.sanitize(tx, verify_signatures)?;
        Ok(self.bank.simulate_transaction_unchecked(&sanitized, true))
    }

    /// Processes `tx` and commits it (a failed transaction is committed too: it pays its fee), then closes
    /// the slot. Transactions that cannot be committed at all (bad signature, unknown blockhash, already
    /// processed, fee payer without funds) are refused with their error.
    pub fn process(&mut self, tx: VersionedTransaction) -> Result<Arc<TxRecord>, TransactionError> {
        let sanitized = self.sanitize(tx.clone(), true)?;
        let signature = *sanitized.signature();
        let message: &SanitizedMessage = sanitized.message();
        let account_keys: Vec<(Pubkey, bool)> = message
            .account_keys()
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, message.is_writable(i)))
            .collect();
        let loaded_addresses = match message {
            SanitizedMessage::V0(m) => LoadedAddresses::clone(&m.loaded_addresses),
            SanitizedMessage::Legacy(_) => LoadedAddresses::default(),
        };
        let pre_tokens = token_balances(&self.bank, &account_keys);
        let batch = self
            .bank
            .prepare_sanitized_batch(std::slice::from_ref(&sanitized));
        let (mut results, balances) = self.bank.load_execute_and_commit_transactions(
            &batch,
            solana_clock::MAX_PROCESSING_AGE,
            solana_svm::transaction_processor::ExecutionRecordingConfig {
                enable_cpi_recording: true,
                enable_log_recording: true,
                enable_return_data_recording: true,
                enable_transaction_balance_recording: true,
            },
            &mut solana_svm_timings::ExecuteTimings::default(),
            None,
        );
        drop(batch);
        let committed = results.remove(0)?;
        let (mut pre, mut post) = balances
            .map(|b| {
                let (pre, post, _, _) = b.into_vecs();
                (pre, post)
            })
            .unwrap_or_default();
        let meta = TransactionStatusMeta {
            status: committed.status.clone(),
            fee: committed.fee_details.total_fee(),
            pre_balances: pre.pop().unwrap_or_default(),
            post_balances: post.pop().unwrap_or_default(),
            inner_instructions: committed.inner_instructions.map(|list| {
                list.into_iter()
                    .enumerate()
                    .filter(|(_, inner)| !inner.is_empty())
                    .map(|(index, inner)| InnerInstructions {
                        index: index as u8,
                        instructions: inner
                            .into_iter()
                            .map(|i| InnerInstruction {
                                instruction: i.instruction,
                                stack_height: Some(u32::from(i.stack_height)),
                            })
                            .collect(),
                    })
                    .collect()
            }),
            log_messages: committed.log_messages,
            pre_token_balances: Some(pre_tokens),
            post_token_balances: Some(token_balances(&self.bank, &account_keys)),
            rewards: None,
            loaded_addresses,
            return_data: committed.return_data,
            compute_units_consumed: Some(committed.executed_units),
            cost_units: None,
        };
        let slot = self.bank.slot();
        let record = Arc::new(TxRecord {
            slot,
            index: self.current_signatures.len() as u64,
            signature,
            transaction: tx,
            meta,
            block_time: self.bank.clock().unix_timestamp,
            account_keys,
        });
        self.current_signatures.push(signature);
        self.txs.insert(signature, record.clone());
        for (key, _) in &record.account_keys {
            self.by_address.entry(*key).or_default().push(signature);
        }
        for (pubkey, writable) in record.account_keys.clone() {
            if !writable {
                continue;
            }
            self.write_version += 1;
            let account = self.bank.get_account(&pubkey).unwrap_or_default();
            self.emit(ChainEvent::Account {
                slot,
                pubkey,
                account,
                write_version: self.write_version,
                txn_signature: Some(signature),
            });
        }
        self.emit(ChainEvent::Transaction(record.clone()));
        if let Err(e) = self.advance_slot() {
            tracing::error!("closing slot {slot}: {e:#}");
        }
        Ok(record)
    }

    /// Transfers lamports from the faucet (the `requestAirdrop` method).
    pub fn airdrop(&mut self, to: &Pubkey, lamports: u64) -> Result<Signature, TransactionError> {
        let ix =
            solana_system_interface::instruction::transfer(&self.faucet.pubkey(), to, lamports);
        let (blockhash, _) = self.latest_blockhash();
        let tx = solana_transaction::Transaction::new_signed_with_payer(
            &[ix],
            Some(&self.faucet.pubkey()),
            &[&self.faucet],
            blockhash,
        );
        let record = self.process(VersionedTransaction::from(tx))?;
        record.meta.status.clone()?;
        Ok(record.signature)
    }

    /// Signature status: the slot it landed in and its result, if known.
    pub fn signature_status(
        &self,
        signature: &Signature,
    ) -> Option<(Slot, Result<(), TransactionError>)> {
        self.txs
            .get(signature)
            .map(|t| (t.slot, t.meta.status.clone()))
    }

    /// Lamports to keep an account of `len` bytes rent exempt.
    pub fn minimum_balance(&self, len: usize) -> u64 {
        self.bank.get_minimum_balance_for_rent_exemption(len)
    }

    /// The fee of a message (lamports per signature plus any priority fee). Messages that use address
    /// lookup tables are refused: this chain has no tables to load them from.
    pub fn fee_for_message(&self, message: VersionedMessage) -> anyhow::Result<Option<u64>> {
        if message
            .address_table_lookups()
            .is_some_and(|l| !l.is_empty())
        {
            anyhow::bail!("address lookup tables are not supported on this chain");
        }
        let versioned = solana_message::SanitizedVersionedMessage::try_new(message)
            .context("sanitizing message")?;
        let sanitized = SanitizedMessage::try_new(
            versioned,
            solana_message::SimpleAddressLoader::Enabled(LoadedAddresses::default()),
            &std::collections::HashSet::new(),
        )
        .context("sanitizing message")?;
        Ok(self.bank.get_fee_for_message(&sanitized))
    }
}

/// The compute-unit price a transaction set (`SetComputeUnitPrice`, micro-lamports), else 0.
pub(super) fn compute_unit_price(tx: &VersionedTransaction) -> u64 {
    const COMPUTE_BUDGET: Pubkey =
        Pubkey::from_str_const("ComputeBudget111111111111111111111111111111");
    const SET_COMPUTE_UNIT_PRICE: u8 = 3;
    let keys = tx.message.static_account_keys();
    tx.message
        .instructions()
        .iter()
        .filter(|ix| keys.get(usize::from(ix.program_id_index)) == Some(&COMPUTE_BUDGET))
        .find_map(|ix| match ix.data.split_first() {
            Some((&SET_COMPUTE_UNIT_PRICE, rest)) => rest
                .get(..8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_le_bytes),
            _ => None,
        })
        .unwrap_or(0)
}

/// The token accounts among a transaction's `keys` as `bank` holds them, as a validator reports them in
/// `preTokenBalances` / `postTokenBalances` (SPL Token and Token-2022 accounts: mint, owner, amount with the
/// mint's decimals). Clients read a swap's token movements from them.
fn token_balances(
    bank: &Bank,
    keys: &[(Pubkey, bool)],
) -> Vec<solana_transaction_status::TransactionTokenBalance> {
    use solana_account::ReadableAccount;
    use solana_account_decoder::parse_account_data::SplTokenAdditionalDataV2;
    use solana_account_decoder::parse_token::token_amount_to_ui_amount_v3;
    const TOKEN: Pubkey = solana_pubkey::pubkey!("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
    const TOKEN_2022: Pubkey =
        solana_pubkey::pubkey!("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
    // An account's layout: mint, owner, amount, ..., state at 108 (0: uninitialized); Token-2022 accounts
    // with extensions are longer and say `2` (an account, not a mint) at 165.
    const ACCOUNT_LEN: usize = 165;
    keys.iter()
        .enumerate()
        .filter_map(|(i, (key, _))| {
            let account = bank.get_account(key)?;
            let program = *account.owner();
            let data = account.data();
            let is_account = data.len() == ACCOUNT_LEN
                || (program == TOKEN_2022 && data.len() > ACCOUNT_LEN && data[ACCOUNT_LEN] == 2);
            if !(program == TOKEN || program == TOKEN_2022) || !is_account || data[108] == 0 {
                return None;
            }
            let mint = Pubkey::try_from(&data[0..32]).ok()?;
            let owner = Pubkey::try_from(&data[32..64]).ok()?;
            let amount = u64::from_le_bytes(data[64..72].try_into().ok()?);
            let decimals = bank
                .get_account(&mint)
                .and_then(|m| m.data().get(44).copied())
                .unwrap_or(0);
            Some(solana_transaction_status::TransactionTokenBalance {
                account_index: u8::try_from(i).ok()?,
                mint: mint.to_string(),
                ui_token_amount: token_amount_to_ui_amount_v3(
                    amount,
                    &SplTokenAdditionalDataV2::with_decimals(decimals),
                ),
                owner: owner.to_string(),
                program_id: program.to_string(),
            })
        })
        .collect()
}
