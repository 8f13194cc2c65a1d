import Foundation
import NestoryDomain

/// The kinds of report Nestory generates (and keeps in the export history).
public enum ReportKind: String, Hashable, Codable, Sendable, CaseIterable {
    case inventory
    case lossList = "loss"

    public var title: String {
        switch self {
        case .inventory: return "Full Inventory"
        case .lossList: return "Loss List"
        }
    }
}

/// How the full inventory is grouped.
public enum ReportGrouping: String, Hashable, Codable, Sendable, CaseIterable {
    case room, category

    public var label: String { self == .room ? "Room" : "Category" }
}

/// Reading a report's choices as given (a form's value, an API body's): empty is the default, a choice is read
/// whatever its case and spaces, and anything else is refused on its field, never taken for the default.
public protocol ReportChoice: RawRepresentable<String>, CaseIterable {}

extension ReportChoice {
    public static func chosen(_ text: String?, default fallback: Self, field: String) throws(DomainError) -> Self {
        let text = (text ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        if text.isEmpty { return fallback }
        guard let choice = Self.allCases.first(where: { $0.rawValue.lowercased() == text }) else {
            let names = Self.allCases.map(\.rawValue)
            throw .invalid(field: field, message: "Choose \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "").")
        }
        return choice
    }
}

extension ReportGrouping: ReportChoice {}

/// The paper the PDF is laid out for.
public enum PaperSize: String, Hashable, Codable, Sendable, CaseIterable, ReportChoice {
    case a4, letter

    public var label: String { self == .a4 ? "A4" : "US Letter" }
    /// The paper a household's reports are laid out for unless it chooses: US Letter where its currency says that is
    /// the paper in use (the US and Canada), A4 elsewhere.
    public static func usual(for currency: CurrencyCode) -> PaperSize { ["USD", "CAD"].contains(currency.code) ? .letter : .a4 }
    /// Portrait width and height in PDF points (1/72 inch).
    public var points: (width: Double, height: Double) {
        switch self {
        case .a4: return (595.276, 841.89)
        case .letter: return (612, 792)
        }
    }
}

/// The options sheet of the full inventory report.
public struct InventoryReportOptions: Hashable, Codable, Sendable {
    public var grouping: ReportGrouping
    public var includePhotos: Bool
    /// Items without the evidence the documentation score asks for (photo, value, category, room).
    public var includeUndocumented: Bool
    public var paper: PaperSize

    public init(grouping: ReportGrouping = .room, includePhotos: Bool = true, includeUndocumented: Bool = true, paper: PaperSize = .a4) {
        self.grouping = grouping
        self.includePhotos = includePhotos
        self.includeUndocumented = includeUndocumented
        self.paper = paper
    }

    /// "Grouped by room · with photos · all items · A4", for the history list and the cover.
    public var summary: String {
        ["Grouped by \(grouping.label.lowercased())", includePhotos ? "with photos" : "without photos",
         includeUndocumented ? "all items" : "documented items only", paper.label].joined(separator: " · ")
    }
}

/// What happened, as the loss list states it.
public enum IncidentType: String, Hashable, Codable, Sendable, CaseIterable, ReportChoice {
    case fire, theft, water, other

    public var label: String {
        switch self {
        case .fire: return "Fire"
        case .theft: return "Theft"
        case .water: return "Water damage"
        case .other: return "Other"
        }
    }
}

/// The incident a loss list is for.
public struct Incident: Hashable, Codable, Sendable {
    public var date: CalendarDate
    public var type: IncidentType
    public var description: String
    public var policyNumber: String?
    public var claimNumber: String?

    public init(date: CalendarDate, type: IncidentType, description: String, policyNumber: String? = nil, claimNumber: String? = nil) {
        self.date = date
        self.type = type
        self.description = description
        self.policyNumber = policyNumber
        self.claimNumber = claimNumber
    }

    public static let maxDescriptionLength = 2000

    /// The incident as given: its date as text (`YYYY-MM-DD`), its type as a choice (other when empty), the rest as
    /// `validated` reads them.
    public static func reading(date: String, type: String?, description: String, policyNumber: String?, claimNumber: String?,
                               today: CalendarDate, typeField: String = "type") throws(DomainError) -> Incident {
        var problems = FieldErrors()
        let date = date.trimmingCharacters(in: .whitespaces)
        var day: CalendarDate?
        if date.isEmpty {
            problems.append(FieldError(field: "incidentDate", message: "Enter the date of the loss."))
        } else {
            do { day = try CalendarDate(iso: date) } catch { problems.append(FieldError(field: "incidentDate", message: error.message)) }
        }
        let type = problems.collect { () throws(DomainError) in try IncidentType.chosen(type, default: .other, field: typeField) }
        guard let day, let type else { throw .validation(problems.fields) }
        return try Incident(date: day, type: type, description: description, policyNumber: policyNumber, claimNumber: claimNumber)
            .validated(today: today)
    }

    /// Trims the text fields and checks them; the date may not be after `today`.
    public func validated(today: CalendarDate) throws(DomainError) -> Incident {
        var out = self
        var errors: [FieldError] = []
        out.description = Text.cleanMultiline(description) ?? ""
        if out.description.count > Self.maxDescriptionLength {
            errors.append(.init(field: "description", message: "Keep the description under \(Self.maxDescriptionLength) characters."))
        }
        out.policyNumber = policyNumber.flatMap(Text.clean)
        out.claimNumber = claimNumber.flatMap(Text.clean)
        for (field, value) in [("policyNumber", out.policyNumber), ("claimNumber", out.claimNumber)] {
            if let value, value.count > 80 { errors.append(.init(field: field, message: "Keep this under 80 characters.")) }
        }
        if date > today { errors.append(.init(field: "incidentDate", message: "The incident date cannot be in the future.")) }
        guard errors.isEmpty else { throw .validation(errors) }
        return out
    }
}

/// The loss list's options: the incident, the chosen items and the paper.
public struct LossListOptions: Hashable, Codable, Sendable {
    public var incident: Incident
    public var itemIDs: [ItemID]
    public var includePhotos: Bool
    public var paper: PaperSize

    public init(incident: Incident, itemIDs: [ItemID], includePhotos: Bool = true, paper: PaperSize = .a4) {
        self.incident = incident
        self.itemIDs = itemIDs
        self.includePhotos = includePhotos
        self.paper = paper
    }

    public var summary: String {
        "\(incident.type.label) on \(incident.date.iso) · \(itemIDs.count) item\(itemIDs.count == 1 ? "" : "s") · \(paper.label)"
    }
}

/// A report to generate, with its options (Codable: it is a queued job's payload).
public enum ReportRequest: Sendable, Hashable, Codable {
    case inventory(InventoryReportOptions)
    case lossList(LossListOptions)

    public var kind: ReportKind {
        switch self {
        case .inventory: return .inventory
        case .lossList: return .lossList
        }
    }

    private enum CodingKeys: String, CodingKey { case kind, inventory, lossList }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(ReportKind.self, forKey: .kind) {
        case .inventory: self = .inventory(try container.decode(InventoryReportOptions.self, forKey: .inventory))
        case .lossList: self = .lossList(try container.decode(LossListOptions.self, forKey: .lossList))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        switch self {
        case .inventory(let options): try container.encode(options, forKey: .inventory)
        case .lossList(let options): try container.encode(options, forKey: .lossList)
        }
    }
}
