//! One `Subscribe` stream, run by its own task: the requests it reads (filters replaced, pings answered),
//! the chain's events it matches, buffers to the subscription's commitment and sends, with backpressure.

use super::*;

/// Something to send once its slot reaches the subscription's commitment.
enum Item {
    /// An account, transaction or block meta event.
    Event(Arc<Stamped>),
    /// A whole block: its meta event and the account and transaction events of its slot.
    Block {
        meta: Arc<Stamped>,
        events: Vec<Arc<Stamped>>,
    },
}

impl Item {
    fn slot(&self) -> Slot {
        match self {
            Item::Event(e) | Item::Block { meta: e, .. } => e.event.slot(),
        }
    }
}

/// Why a stream ends.
enum Stop {
    /// The client went away: nothing more to send.
    ClientGone,
    /// End the stream with this status.
    Fail(Status),
}

impl From<Status> for Stop {
    fn from(status: Status) -> Self {
        Stop::Fail(status)
    }
}

/// What woke the stream task.
enum Step {
    Request(Option<Result<Box<pb::SubscribeRequest>, Status>>),
    Keepalive,
    Live(Result<Arc<Stamped>, RecvError>),
}

/// Resolves when the server shuts down; never when there is no server to shut down (sender dropped).
async fn server_closing(closing: &mut watch::Receiver<bool>) {
    if closing.wait_for(|c| *c).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Waits for the next live chain event; never resolves before the stream has subscribed to the chain.
async fn next_live(
    live: &mut Option<broadcast::Receiver<Arc<Stamped>>>,
) -> Result<Arc<Stamped>, RecvError> {
    match live {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// The state of one `Subscribe` stream, run by its own task.
///
/// The stream subscribes to the chain when the first request with filters arrives (so that `from_slot`
/// can replay history joined to the live feed under one lock). Every event goes through `on_event`,
/// whether replayed or live, so the commitment buffering and block assembly behave the same for both.
pub(super) struct Subscription {
    chain: SharedChain,
    out: mpsc::Sender<Result<pb::SubscribeUpdate, Status>>,
    filters: Filters,
    live: Option<broadcast::Receiver<Arc<Stamped>>>,
    /// The `from_slot` the stream started with; events of earlier slots are not sent.
    from_slot: Option<Slot>,
    /// Sequence number of the last replayed event: live events up to it were already handled.
    replayed_through: u64,
    /// Account and transaction events of slots whose block meta has not arrived yet, to assemble blocks.
    /// A slot's events are emitted under one chain lock, so a stream never starts in the middle of one.
    open: BTreeMap<Slot, Vec<Arc<Stamped>>>,
    /// Updates waiting for their slot to reach the subscription's commitment.
    pending: BTreeMap<Slot, Vec<Item>>,
    confirmed: Option<Slot>,
    finalized: Option<Slot>,
}

impl Subscription {
    pub(super) fn new(
        chain: SharedChain,
        out: mpsc::Sender<Result<pb::SubscribeUpdate, Status>>,
    ) -> Self {
        Subscription {
            chain,
            out,
            filters: Filters::default(),
            live: None,
            from_slot: None,
            replayed_through: 0,
            open: BTreeMap::new(),
            pending: BTreeMap::new(),
            confirmed: None,
            finalized: None,
        }
    }

    pub(super) async fn run(
        mut self,
        mut requests: Streaming<pb::SubscribeRequest>,
        mut closing: watch::Receiver<bool>,
    ) {
        let first_ping = Instant::now()
            .checked_add(PING_INTERVAL)
            .unwrap_or_else(Instant::now);
        let mut keepalive = tokio::time::interval_at(first_ping, PING_INTERVAL);
        keepalive.set_missed_tick_behavior(MissedTickBehavior::Delay);
        // After the client half-closes its request stream, updates keep flowing with the last filters.
        let mut reading = true;
        let stop = loop {
            let step = tokio::select! {
                biased;
                () = self.out.closed() => break Stop::ClientGone,
                () = server_closing(&mut closing) => break Stop::Fail(Status::unavailable("the server is shutting down")),
                request = requests.next(), if reading => Step::Request(request.map(|r| r.map(Box::new))),
                _ = keepalive.tick() => Step::Keepalive,
                event = next_live(&mut self.live) => Step::Live(event),
            };
            let result = match step {
                Step::Request(Some(Ok(request))) => self.on_request(*request).await,
                Step::Request(Some(Err(status))) => {
                    tracing::debug!("gRPC subscription: request stream failed: {status}");
                    Err(Stop::ClientGone)
                }
                Step::Request(None) => {
                    reading = false;
                    Ok(())
                }
                Step::Keepalive => {
                    self.send(convert::update(
                        Vec::new(),
                        UpdateOneof::Ping(pb::SubscribeUpdatePing {}),
                    ))
                    .await
                }
                Step::Live(Ok(event)) if event.seq <= self.replayed_through => Ok(()),
                Step::Live(Ok(event)) => self.on_event(event).await,
                Step::Live(Err(RecvError::Lagged(missed))) => {
                    Err(Stop::Fail(Status::data_loss(format!(
                        "the subscription fell behind the chain and {missed} events were dropped; \
                     resubscribe with from_slot to replay what was missed"
                    ))))
                }
                Step::Live(Err(RecvError::Closed)) => {
                    Err(Stop::Fail(Status::unavailable("the chain stopped")))
                }
            };
            if let Err(stop) = result {
                break stop;
            }
        };
        if let Stop::Fail(status) = stop {
            tracing::debug!("gRPC subscription ended: {status}");
            // The client may be gone already; nothing else to tell it.
            let _ = self.out.send(Err(status)).await;
        }
    }

    async fn send(&self, update: pb::SubscribeUpdate) -> Result<(), Stop> {
        self.out
            .send(Ok(update))
            .await
            .map_err(|_| Stop::ClientGone)
    }

    /// Answers a ping, then (unless the request is only a ping) replaces the filters, and starts the
    /// stream on the first request with filters.
    async fn on_request(&mut self, request: pb::SubscribeRequest) -> Result<(), Stop> {
        if let Some(ping) = &request.ping {
            self.send(convert::update(
                Vec::new(),
                UpdateOneof::Pong(pb::SubscribeUpdatePong { id: ping.id }),
            ))
            .await?;
        }
        if filter::is_ping_only(&request) {
            return Ok(());
        }
        let filters = Filters::parse(&request)?;
        let started = self.live.is_some();
        if started && request.from_slot.is_some() && request.from_slot != self.from_slot {
            return Err(invalid(
                "from_slot can only be set by the request that starts a subscription; open a new stream to replay",
            )
            .into());
        }
        let previous = std::mem::replace(&mut self.filters, filters).commitment;
        if !started {
            self.start(request.from_slot).await
        } else if previous != self.filters.commitment {
            // What the new commitment already allows goes out now.
            self.release(self.reached_slot()).await
        } else {
            Ok(())
        }
    }

    /// Subscribes to the chain, replaying history first when `from_slot` asks for it. History and the live
    /// receiver are taken under one lock so that they join without a gap or a duplicate.
    async fn start(&mut self, from_slot: Option<Slot>) -> Result<(), Stop> {
        let (history, live) = {
            let chain = lock(&self.chain)?;
            match from_slot {
                None => (Vec::new(), chain.subscribe()),
                Some(from) => {
                    let oldest = chain.first_replayable_slot();
                    if from < oldest {
                        return Err(invalid(format!(
                            "from_slot {from} is not available: the oldest slot that can be replayed is {oldest}"
                        ))
                        .into());
                    }
                    (chain.history_from(from), chain.subscribe())
                }
            }
        };
        tracing::debug!(
            "gRPC subscription started (from_slot {from_slot:?}, {} events to replay)",
            history.len()
        );
        self.live = Some(live);
        self.from_slot = from_slot;
        self.replayed_through = history.last().map_or(0, |e| e.seq);
        for event in history {
            self.on_event(event).await?;
        }
        Ok(())
    }

    async fn on_event(&mut self, event: Arc<Stamped>) -> Result<(), Stop> {
        let slot = event.event.slot();
        if self.from_slot.is_some_and(|from| slot < from) {
            return Ok(());
        }
        match &event.event {
            ChainEvent::Account { .. } | ChainEvent::Transaction(_) => {
                self.open.entry(slot).or_default().push(Arc::clone(&event));
                self.route(Item::Event(event)).await
            }
            ChainEvent::BlockMeta { .. } => {
                let closed: Vec<Slot> = self.open.range(..=slot).map(|(s, _)| *s).collect();
                let events = closed
                    .into_iter()
                    .filter_map(|s| self.open.remove(&s))
                    .flatten()
                    .collect();
                self.route(Item::Event(Arc::clone(&event))).await?;
                self.route(Item::Block {
                    meta: event,
                    events,
                })
                .await
            }
            ChainEvent::Slot {
                slot,
                parent,
                status,
            } => {
                let (slot, parent, status) = (*slot, *parent, *status);
                if status >= ChainSlotStatus::Confirmed {
                    self.confirmed = self.confirmed.max(Some(slot));
                }
                if status == ChainSlotStatus::Finalized {
                    self.finalized = self.finalized.max(Some(slot));
                }
                if status != ChainSlotStatus::Processed
                    && level_of(status) == self.filters.commitment
                {
                    self.release(Some(slot)).await?;
                }
                let names = self.filters.slots_matching(status);
                if names.is_empty() {
                    return Ok(());
                }
                let update = pb::SubscribeUpdateSlot {
                    slot,
                    parent,
                    status: convert::slot_status(status) as i32,
                    dead_error: None,
                    bank_id: None,
                };
                self.send(convert::update(names, UpdateOneof::Slot(update)))
                    .await
            }
        }
    }

    /// The highest slot at the subscription's commitment (processed: everything).
    fn reached_slot(&self) -> Option<Slot> {
        match self.filters.commitment {
            pb::CommitmentLevel::Processed => Some(Slot::MAX),
            pb::CommitmentLevel::Confirmed => self.confirmed,
            pb::CommitmentLevel::Finalized => self.finalized,
        }
    }

    async fn route(&mut self, item: Item) -> Result<(), Stop> {
        let slot = item.slot();
        if self.reached_slot().is_some_and(|reached| slot <= reached) {
            self.emit(&item).await
        } else {
            self.pending.entry(slot).or_default().push(item);
            Ok(())
        }
    }

    /// Sends the buffered updates of every slot up to `through`, oldest first.
    async fn release(&mut self, through: Option<Slot>) -> Result<(), Stop> {
        let Some(through) = through else {
            return Ok(());
        };
        let slots: Vec<Slot> = self.pending.range(..=through).map(|(s, _)| *s).collect();
        for slot in slots {
            for item in self.pending.remove(&slot).unwrap_or_default() {
                self.emit(&item).await?;
            }
        }
        Ok(())
    }

    async fn emit(&self, item: &Item) -> Result<(), Stop> {
        for update in self.updates_for(item) {
            self.send(update).await?;
        }
        Ok(())
    }

    /// The updates an item produces under the current filters (none when no filter matches).
    fn updates_for(&self, item: &Item) -> Vec<pb::SubscribeUpdate> {
        let f = &self.filters;
        let mut out = Vec::new();
        match item {
            Item::Event(event) => match &event.event {
                ChainEvent::Account {
                    slot,
                    pubkey,
                    account,
                    write_version,
                    txn_signature,
                } => {
                    let view = AccountView {
                        pubkey,
                        owner: account.owner(),
                        lamports: account.lamports(),
                        data: account.data(),
                        has_txn_signature: txn_signature.is_some(),
                    };
                    let names = f.accounts_matching(&view);
                    if !names.is_empty() {
                        let info = convert::account_info(
                            pubkey,
                            account,
                            *write_version,
                            txn_signature.as_ref(),
                            &f.data_slice,
                        );
                        let update = pb::SubscribeUpdateAccount {
                            account: Some(info),
                            slot: *slot,
                            is_startup: false,
                            bank_id: None,
                        };
                        out.push(convert::update(names, UpdateOneof::Account(update)));
                    }
                }
                ChainEvent::Transaction(tx) => {
                    let facts = convert::tx_facts(tx);
                    let names = f.transactions_matching(&facts);
                    if !names.is_empty() {
                        let update = pb::SubscribeUpdateTransaction {
                            transaction: Some(convert::transaction_info(tx)),
                            slot: tx.slot,
                            bank_id: 0,
                        };
                        out.push(convert::update(names, UpdateOneof::Transaction(update)));
                    }
                    let names = f.transaction_statuses_matching(&facts);
                    if !names.is_empty() {
                        out.push(convert::update(
                            names,
                            UpdateOneof::TransactionStatus(convert::transaction_status(tx)),
                        ));
                    }
                }
                ChainEvent::BlockMeta { .. } => {
                    if let Some(info) = block_info(&event.event) {
                        if !f.blocks_meta.is_empty() {
                            out.push(convert::update(
                                f.blocks_meta.clone(),
                                UpdateOneof::BlockMeta(convert::block_meta(&info)),
                            ));
                        }
                    }
                }
                // Slot statuses are sent as they arrive, never buffered.
                ChainEvent::Slot { .. } => {}
            },
            Item::Block { meta, events } => {
                if let Some(info) = block_info(&meta.event) {
                    for (name, filter) in &f.blocks {
                        let block = self.block_for(filter, &info, events);
                        out.push(convert::update(
                            vec![name.clone()],
                            UpdateOneof::Block(block),
                        ));
                    }
                }
            }
        }
        out
    }

    /// A block as one `blocks` filter selects it. Each filter gets its own update because their
    /// `account_include` lists select different contents.
    fn block_for(
        &self,
        filter: &BlockFilter,
        info: &convert::BlockInfo,
        events: &[Arc<Stamped>],
    ) -> pb::SubscribeUpdateBlock {
        let mut transactions = Vec::new();
        let mut accounts = Vec::new();
        let mut updated_account_count: u64 = 0;
        for event in events {
            match &event.event {
                ChainEvent::Account {
                    pubkey,
                    account,
                    write_version,
                    txn_signature,
                    ..
                } => {
                    updated_account_count = updated_account_count.saturating_add(1);
                    if filter.include_accounts && filter.includes_account(pubkey) {
                        accounts.push(convert::account_info(
                            pubkey,
                            account,
                            *write_version,
                            txn_signature.as_ref(),
                            &self.filters.data_slice,
                        ));
                    }
                }
                ChainEvent::Transaction(tx) => {
                    let keys: Vec<_> = tx.account_keys.iter().map(|(k, _)| *k).collect();
                    if filter.include_transactions && filter.includes_transaction(&keys) {
                        transactions.push(convert::transaction_info(tx));
                    }
                }
                ChainEvent::Slot { .. } | ChainEvent::BlockMeta { .. } => {}
            }
        }
        convert::block(info, transactions, accounts, updated_account_count)
    }
}

fn block_info(event: &ChainEvent) -> Option<convert::BlockInfo> {
    match event {
        ChainEvent::BlockMeta {
            slot,
            parent_slot,
            blockhash,
            parent_blockhash,
            block_time,
            block_height,
            executed_transaction_count,
        } => Some(convert::BlockInfo {
            slot: *slot,
            parent_slot: *parent_slot,
            blockhash: *blockhash,
            parent_blockhash: *parent_blockhash,
            block_time: *block_time,
            block_height: *block_height,
            executed_transaction_count: *executed_transaction_count,
        }),
        _ => None,
    }
}
