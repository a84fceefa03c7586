import MediaCore
import Synchronization

/// One key's air: the publication its readers follow, fed by whichever publisher is on air (the primary or its hot
/// standby) or by the slate while neither sends, on one timeline, so readers never see the stream end while a
/// streamer is there.
final class OnAirChannel: Sendable {
    /// A publisher's seat: its own publication and what it sent that the air may need.
    private struct SeatFeed {
        var publication: Publication
        var description: StreamDescription?
        /// Its first frame on air (its own time) since its last splice: audio from before it is not aired.
        var start: MediaTime?
        /// Its timestamps made monotonic across jumps, before anything below looks at them.
        var timeline = MonotonicTimeline()
        /// Its newest audio while off air: an encoder sends audio a little ahead of the keyframe it splices at, and
        /// what belongs after that keyframe goes on air with it (dropped, it left a hole MSE players stall on).
        var offAirAudio: [MediaFrame] = []

        /// Keeps `frame` among the newest off-air audio (a few frames, more than any encoder's interleaving).
        mutating func keepOffAir(_ frame: MediaFrame) {
            offAirAudio.append(frame)
            if offAirAudio.count > 16 { offAirAudio.removeFirst(offAirAudio.count - 16) }
        }
    }

    private struct State {
        var onAir: OnAirSwitch
        var seats: [OnAirRole: SeatFeed] = [:]
        var timeline = SpliceTimeline()
        var slate: SlatePlayer?
        /// The air's description before the slate, which the slate is made to match.
        var programDescription: StreamDescription?
        /// Slates made for this air's programs, newest last: their silence tops the air's audio up at a splice.
        var clips: [SlateClip] = []
        var sequence = 0
        var ended = false

        /// Keeps `clip` for topping up audio at later splices (one per audio shape).
        mutating func remember(_ clip: SlateClip) {
            clips.removeAll { $0.silences(clip.description.audio) }
            clips.append(clip)
        }
    }

    let key: StreamKey
    /// The publication readers follow.
    let air: Publication
    private let slateMaker: (any SlateMaker)?
    private let onSwitch: (@Sendable (OnAirSwitchEvent) -> Void)?
    private let state: Mutex<State>
    /// `OnAirConfiguration.slateWarmUp`.
    private let slateWarmUp: Duration
    /// How often stalls, the slate and the grace are looked at.
    static let tickInterval: Duration = .milliseconds(20)

    init(
        key: StreamKey,
        air: Publication,
        configuration: OnAirConfiguration,
        slateMaker: (any SlateMaker)?,
        onSwitch: (@Sendable (OnAirSwitchEvent) -> Void)?
    ) {
        self.key = key
        self.air = air
        self.slateMaker = slateMaker
        self.onSwitch = onSwitch
        slateWarmUp = configuration.slateWarmUp
        state = Mutex(State(onAir: OnAirSwitch(configuration: configuration)))
        Task { [weak self] in
            while let channel = self, !channel.isEnded {
                channel.tick(now: .now)
                try? await Task.sleep(for: Self.tickInterval)
            }
        }
    }

    /// True once the air ended.
    var isEnded: Bool { state.withLock { $0.ended } }

    /// Ends the air now when nobody publishes on it (the slate, or nothing, is on air); true when it is ended.
    func endIfUnattended() -> Bool {
        let ends = state.withLock { s -> Bool? in
            if s.ended { return false }
            guard s.onAir.isEmpty else { return nil }
            s.ended = true
            s.slate = nil
            return true
        }
        if ends == true { air.end() }
        return ends != nil
    }

    /// True when a publisher asking for `role` now would be seated.
    func admits(_ role: OnAirRole) -> Bool {
        state.withLock { !$0.ended && $0.onAir.admits(role, now: .now) }
    }

    /// Who is on air, for the API.
    var status: OnAirStatus {
        state.withLock { s in
            OnAirStatus(
                onAir: s.onAir.onAir?.description,
                switches: s.onAir.switches,
                primary: s.onAir.isSeated(.primary),
                backup: s.onAir.isSeated(.backup)
            )
        }
    }

    /// Seats a publisher in `role`, in place of one that went silent there (whose publication ends); nil when the
    /// seat's publisher sends or the air ended.
    func seat(
        _ role: OnAirRole,
        sessionID: String,
        origin: String,
        onFrame: (@Sendable (MediaFrame) -> Void)?
    ) -> Publication? {
        let publication = Publication(
            key: key,
            sessionID: sessionID,
            origin: origin,
            onFrame: onFrame,
            relay: { [weak self] from, event in self?.relay(role, from: from, event) },
            onEnd: { _ in }
        )
        let now = ContinuousClock.now
        var events: [OnAirSwitchEvent] = []
        let (seated, replaced) = state.withLock { s -> (Bool, Publication?) in
            guard !s.ended else { return (false, nil) }
            var replaced: Publication?
            switch s.onAir.arrived(role, now: now) {
            case .refused:
                return (false, nil)
            case .seated:
                break
            case .replaced(let silent, let actions):
                replaced = s.seats[role]?.publication
                _ = perform(actions, now: now, &s, &events)
                events.append(
                    OnAirSwitchEvent(
                        key: key,
                        kind: .replaced(role: role, silent: silent, session: replaced?.sessionID ?? "-"),
                        switches: s.onAir.switches
                    )
                )
            }
            s.seats[role] = SeatFeed(publication: publication)
            return (true, replaced)
        }
        finish(ends: false, events: events, warm: nil)
        // Its `.ended` reaches `relay` from a publication no longer seated, and is ignored there.
        replaced?.end()
        return seated ? publication : nil
    }

    /// What a seat's publisher sent (ignored from a publication a newcomer replaced).
    private func relay(_ role: OnAirRole, from publication: Publication, _ event: StreamEvent) {
        let now = ContinuousClock.now
        var ends = false
        var events: [OnAirSwitchEvent] = []
        var warm: StreamDescription?
        state.withLock { s in
            guard !s.ended, var seat = s.seats[role], seat.publication === publication else { return }
            switch event {
            case .description(let d):
                seat.description = d
                s.seats[role] = seat
                let first = !s.onAir.everOnAir && s.seats.count == 1
                guard s.onAir.onAir == .seat(role) || first else { return }
                warm = d
                describe(d, &s)
            case .frame(let sent):
                // Rebased, not a DISCONTINUITY: same publisher and codecs, so no player has to switch timelines.
                let (frame, rebase) = seat.timeline.place(sent)
                s.seats[role] = seat
                if let rebase { events.append(rebased(role, rebase, &s)) }
                let splicePoint = frame.kind == .video ? frame.isKeyframe : seat.description?.video == nil
                var early: [MediaFrame] = []
                switch s.onAir.media(role, isSplicePoint: splicePoint, now: now) {
                case .drop:
                    if frame.kind == .audio {
                        seat.keepOffAir(frame)
                        s.seats[role] = seat
                    }
                    return
                case .forward:
                    if let start = seat.start, frame.dts < start { return }
                    if let d = seat.description, s.programDescription == nil {
                        warm = d
                        describe(d, &s)
                    }
                case .splice(let change):
                    fillAudio(now: now, &s)
                    s.slate = nil
                    s.sequence += 1
                    if let d = seat.description {
                        warm = d
                        describe(d, &s)
                    }
                    s.timeline.splice(sourceStart: frame.dts)
                    seat.start = frame.dts
                    early = seat.offAirAudio.filter { $0.dts >= frame.dts }
                    seat.offAirAudio = []
                    s.seats[role] = seat
                    events.append(switched(change, &s))
                }
                let audio = seat.description?.audio
                let length = audio.map { MediaTime(value: Int64($0.samplesPerFrame), timescale: Int32($0.sampleRate)) }
                for f in [frame] + early { air.send(s.timeline.place(f, audioDuration: length, now: now)) }
            case .ended:
                s.seats[role] = nil
                ends = perform(s.onAir.left(role, now: now), now: now, &s, &events)
            }
        }
        finish(ends: ends, events: events, warm: warm)
    }

    /// Stalls, the slate's frames and the grace.
    private func tick(now: ContinuousClock.Instant) {
        var ends = false
        var events: [OnAirSwitchEvent] = []
        state.withLock { s in
            guard !s.ended else { return }
            ends = perform(s.onAir.tick(now: now), now: now, &s, &events)
            guard !ends, var slate = s.slate else { return }
            let length = slate.clip.audioFrameDuration
            for frame in slate.due(now: now) { air.send(s.timeline.place(frame, audioDuration: length, now: now)) }
            s.slate = slate
        }
        finish(ends: ends, events: events, warm: nil)
    }

    /// Carries out the switch's actions; true when the air ends.
    private func perform(
        _ actions: [OnAirSwitch.Action],
        now: ContinuousClock.Instant,
        _ s: inout State,
        _ events: inout [OnAirSwitchEvent]
    ) -> Bool {
        var ends = false
        for action in actions {
            switch action {
            case .startSlate(let change):
                s.slate = nil
                if let program = s.programDescription, let clip = slateMaker?.clip(matching: program) {
                    s.remember(clip)
                    fillAudio(now: now, &s)
                    s.sequence += 1
                    air.update(description: StreamDescription(clip.description, sequence: s.sequence))
                    s.timeline.splice(sourceStart: .zero(timescale: 90_000))
                    s.slate = SlatePlayer(clip: clip, anchor: s.timeline.lastPlaced ?? now, now: now)
                }
                events.append(switched(change, &s))
            case .goDark(let change):
                s.slate = nil
                events.append(switched(change, &s))
            case .holdOff(let role, let hold, let drops):
                events.append(
                    OnAirSwitchEvent(
                        key: key,
                        kind: .heldOff(role: role, hold: hold, drops: drops),
                        switches: s.onAir.switches
                    )
                )
            case .end:
                s.ended = true
                s.slate = nil
                ends = true
            }
        }
        return ends
    }

    /// Tops the air's audio up with silence to its video's end before the next source or the slate splices on: the
    /// slate's own while it is on air, else that of the newest remembered clip that decodes with the program's audio.
    private func fillAudio(now: ContinuousClock.Instant, _ s: inout State) {
        let program = s.programDescription?.audio
        guard let clip = s.slate?.clip ?? s.clips.last(where: { $0.silences(program) }),
            let silence = clip.audio, let length = clip.audioFrameDuration
        else { return }
        for frame in s.timeline.silenceToVideoEnd(silence, length: length, now: now) { air.send(frame) }
    }

    /// Puts a publisher's tracks on air (as the program the slate is made to match).
    private func describe(_ d: StreamDescription, _ s: inout State) {
        s.programDescription = d
        air.update(description: StreamDescription(d, sequence: s.sequence))
    }

    private func rebased(_ role: OnAirRole, _ r: MonotonicTimeline.Rebase, _ s: inout State) -> OnAirSwitchEvent {
        OnAirSwitchEvent(
            key: key,
            kind: .rebased(role: role, track: r.track, from: r.from, to: r.to, offset: r.offset),
            switches: s.onAir.switches
        )
    }

    private func switched(_ change: OnAirSwitch.Change, _ s: inout State) -> OnAirSwitchEvent {
        OnAirSwitchEvent(
            key: key,
            kind: .switched(from: change.from?.description, to: change.to?.description, reason: change.reason.rawValue),
            switches: s.onAir.switches
        )
    }

    /// Outside the lock: tells the gateway, ends the air, and has the slate made ahead of its first use.
    private func finish(ends: Bool, events: [OnAirSwitchEvent], warm: StreamDescription?) {
        for e in events { onSwitch?(e) }
        if ends { air.end() }
        if let warm, let slateMaker {
            Task.detached(priority: .background) { [weak self, slateWarmUp] in
                try? await Task.sleep(for: slateWarmUp)
                guard let clip = slateMaker.clip(matching: warm) else { return }
                self?.state.withLock { $0.remember(clip) }
            }
        }
    }
}

extension SlateClip {
    /// True when its silence decodes with `audio`'s decoder configuration: AAC of the same profile, rate and layout.
    fileprivate func silences(_ audio: AudioParameters?) -> Bool {
        guard let audio, let own = description.audio, self.audio != nil else { return false }
        return audio.codec == .aac && own.codec == .aac && own.codecString == audio.codecString
            && own.sampleRate == audio.sampleRate && own.channels == audio.channels
            && own.samplesPerFrame == audio.samplesPerFrame
    }
}

extension StreamDescription {
    /// `d` as the air carries it, in encoding sequence `sequence`.
    fileprivate init(_ d: StreamDescription, sequence: Int) {
        self.init(video: d.video, audio: d.audio, encodingSequence: sequence)
    }
}
