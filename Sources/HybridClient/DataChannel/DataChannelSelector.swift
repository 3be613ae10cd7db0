import HybridCore

/// The client's choice between the tunnel and a phone's L2CAP channel, and the fallback, as a
/// sans-IO state machine with an injected clock (protocol.md §3.4).
///
/// ```
/// advertMatched(psm: nil)            → [l2capUnavailable(why)], connectTunnel  (auto, tunnel)
/// advertMatched(psm: p)              → connectL2CAP(p, deadline)      (auto, l2cap)
/// l2capConnected (before deadline)   → use(.l2cap)
/// l2capFailed / timePassed(deadline) → abandonL2CAP, l2capUnavailable(why), connectTunnel
///                                                                     (auto; l2cap: fail)
/// l2capConnected (after fallback)    → abandonL2CAP                   (the tunnel stays)
/// tunnelConnected                    → use(.tunnel)
/// l2capSilent (no message by ``l2capFirstMessageDeadline``)
///                                    → abandonL2CAP, l2capUnavailable(.noHandshake), connectTunnel
///                                                                     (auto; l2cap: fail)
/// l2capSessionFailed (before the handshake completed)
///                                    → l2capUnavailable(why), connectTunnel  (auto)
/// l2capSessionFailed (l2cap, or after the handshake)
///                                    → l2capUnavailable(why), fail    (the channel's own reason)
///                                    → nothing: the error stands      (any other error)
/// ```
///
/// Once the L2CAP channel is in use, the other end has ``l2capTimeout`` to send its first
/// handshake message: anyone can re-broadcast the phone's advert with a PSM of their own (§3.4),
/// and a stranger that accepts the channel and stays silent must not hold the ceremony until its
/// own timeout. Until ``l2capMessageReceived()``, the driver watches
/// ``l2capFirstMessageDeadline`` and calls ``l2capSilent(at:)`` when it passes.
///
/// `Instant` is whatever clock the driver uses; tests pass their own.
package struct DataChannelSelector<Instant: InstantProtocol>: Sendable
where Instant.Duration == Duration, Instant: Sendable {
    /// What the driver must do next.
    package enum Action: Hashable, Sendable {
        /// Open an LE credit-based channel to the advertiser on `psm`; call
        /// ``DataChannelSelector/timePassed(_:)`` at `deadline` if nothing happened by then.
        case connectL2CAP(psm: UInt16, deadline: Instant)
        /// Give up the L2CAP attempt: cancel it, or close the channel if it connects after all.
        case abandonL2CAP
        /// Connect to the tunnel named in the advert.
        case connectTunnel
        /// Tell the user why the phone's L2CAP channel is not used (before the fallback or the
        /// failure that follows); then go on with the next action.
        case l2capUnavailable(L2CAPUnavailableReason)
        /// Run the session on this channel (and report which one in the JSON event).
        case use(DataChannelKind)
        /// No channel is possible.
        case fail(DataChannelSelectionError)
    }

    private enum State: Sendable {
        case awaitingAdvert
        case tryingL2CAP(deadline: Instant)
        case connectingTunnel
        case chosen(DataChannelKind)
        case failed
    }

    /// The mode (`--channel`).
    package let mode: DataChannelMode
    /// How long an L2CAP attempt may take before the tunnel is used instead.
    package let l2capTimeout: Duration
    /// Whether the QR code offered the L2CAP channel (key 6): only then is a phone's advert
    /// without a PSM worth a reason (else the reason was given with the QR code).
    package let offeredL2CAP: Bool
    private var state: State = .awaitingAdvert
    /// When the L2CAP channel in use must have brought its first message; `nil` before the channel
    /// is used and once a message came.
    package private(set) var l2capFirstMessageDeadline: Instant?

    /// - Parameters:
    ///   - mode: `--channel`.
    ///   - l2capTimeout: The L2CAP attempt's budget, from the matched advert to a connected channel.
    ///   - offeredL2CAP: Whether the QR code offered the channel.
    package init(mode: DataChannelMode, l2capTimeout: Duration, offeredL2CAP: Bool = false) {
        self.mode = mode
        self.l2capTimeout = l2capTimeout
        self.offeredL2CAP = offeredL2CAP
    }

    /// The channel in use, once chosen.
    package var chosen: DataChannelKind? {
        if case .chosen(let kind) = state { return kind }
        return nil
    }

    /// The client's advert matched; `psm` is the suffix's PSM, if any.
    package mutating func advertMatched(psm: UInt16?, at now: Instant) -> [Action] {
        guard case .awaitingAdvert = state else { return [] }
        switch (mode, psm) {
        case (.tunnel, _):
            state = .connectingTunnel
            return [.connectTunnel]
        case (.auto, nil):
            state = .connectingTunnel
            return offeredL2CAP ? [.l2capUnavailable(.phoneOfferedNone), .connectTunnel] : [.connectTunnel]
        case (.l2cap, nil):
            state = .failed
            return [.l2capUnavailable(.phoneOfferedNone), .fail(.noPSMInAdvert)]
        case (.auto, let psm?), (.l2cap, let psm?):
            let deadline = now.advanced(by: l2capTimeout)
            state = .tryingL2CAP(deadline: deadline)
            return [.connectL2CAP(psm: psm, deadline: deadline)]
        }
    }

    /// The L2CAP channel is connected. Counts only before the deadline.
    package mutating func l2capConnected(at now: Instant) -> [Action] {
        guard case .tryingL2CAP(let deadline) = state else {
            // A channel that connects after the fallback (or after a failure) is not used.
            if case .chosen(.l2cap) = state { return [] }
            return [.abandonL2CAP]
        }
        guard now < deadline else { return giveUpL2CAP(.timedOut(limit: l2capTimeout)) }
        state = .chosen(.l2cap)
        l2capFirstMessageDeadline = now.advanced(by: l2capTimeout)
        return [.use(.l2cap)]
    }

    /// A message came over the L2CAP channel in use: its first-message deadline no longer applies.
    package mutating func l2capMessageReceived() {
        l2capFirstMessageDeadline = nil
    }

    /// The clock reached `now` on the L2CAP channel in use. When it is past
    /// ``l2capFirstMessageDeadline`` with no message yet, the channel is given up (the tunnel
    /// under `auto`, else a failure); otherwise nothing.
    package mutating func l2capSilent(at now: Instant) -> [Action] {
        guard case .chosen(.l2cap) = state, let deadline = l2capFirstMessageDeadline, now >= deadline else { return [] }
        l2capFirstMessageDeadline = nil
        return giveUpL2CAP(.noHandshake(limit: l2capTimeout))
    }

    /// The L2CAP connection failed (refused, unreachable, closed before use); `why` is the
    /// error, for the user.
    package mutating func l2capFailed(_ why: String, at now: Instant) -> [Action] {
        guard case .tryingL2CAP = state else { return [] }
        return giveUpL2CAP(.connectFailed(why))
    }

    /// The clock moved on. Falls back when the L2CAP attempt's deadline passed.
    package mutating func timePassed(_ now: Instant) -> [Action] {
        guard case .tryingL2CAP(let deadline) = state, now >= deadline else { return [] }
        return giveUpL2CAP(.timedOut(limit: l2capTimeout))
    }

    /// The session over the L2CAP channel in use failed. `why` is the channel's own reason when
    /// it has one (it stayed silent), else `nil`, and `description` says what failed.
    ///
    /// Before the handshake completed, `auto` uses the tunnel instead, the session as it was:
    /// the advert's PSM suffix is not covered by its tag (§3.4), so a stranger can re-broadcast
    /// the phone's advert with a PSM of its own, and nothing is revealed before the handshake
    /// (msg1 is sent again; only the phone can answer it). Otherwise a failure that is the
    /// channel's own ends the ceremony as an L2CAP failure, and any other error stands (no
    /// action).
    package mutating func l2capSessionFailed(
        _ why: L2CAPUnavailableReason?, describedAs description: String, handshakeComplete: Bool
    ) -> [Action] {
        guard case .chosen(.l2cap) = state else { return [] }
        if mode == .auto, !handshakeComplete {
            state = .connectingTunnel
            l2capFirstMessageDeadline = nil
            return [.l2capUnavailable(why ?? .connectFailed(description)), .connectTunnel]
        }
        guard let why else { return [] }
        state = .failed
        return [.l2capUnavailable(why), .fail(.l2capUnavailable)]
    }

    /// The tunnel WebSocket is open.
    package mutating func tunnelConnected() -> [Action] {
        guard case .connectingTunnel = state else { return [] }
        state = .chosen(.tunnel)
        return [.use(.tunnel)]
    }

    private mutating func giveUpL2CAP(_ why: L2CAPUnavailableReason) -> [Action] {
        switch mode {
        case .auto:
            state = .connectingTunnel
            return [.abandonL2CAP, .l2capUnavailable(why), .connectTunnel]
        case .l2cap, .tunnel:
            state = .failed
            return [.abandonL2CAP, .l2capUnavailable(why), .fail(.l2capUnavailable)]
        }
    }
}
