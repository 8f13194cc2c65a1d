import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// The receipt review form's values as typed (store, date, total, tax and their currency), their conversion to `ReceiptFields` with a
/// message per field, and the merge of an edit onto what was saved while the form was open (as `ItemFormValues`).
public struct ReceiptFormValues: Sendable, Equatable {
    public var values: [String: String]

    public static let fields = ["vendor", "purchaseDate", "total", "tax", "currency"]
    /// The longest store name kept (the form says so too).
    public static let maxVendorLength = 120

    public init(_ values: [String: String] = [:]) { self.values = values }

    /// What the form shows for a receipt as stored. Its currency is the one its amounts were read in (a receipt from
    /// abroad keeps its own); empty when it has no amount yet.
    public init(receipt: Receipt) {
        values = ["vendor": receipt.vendor ?? "", "purchaseDate": receipt.purchaseDate?.iso ?? "",
                  "total": receipt.total?.plainAmount ?? "", "tax": receipt.tax?.plainAmount ?? "",
                  "currency": (receipt.total ?? receipt.tax)?.currency.code ?? ""]
    }

    public subscript(key: String) -> String { values[key] ?? "" }

    /// From the form's hidden field; nil when it is missing or not this shape (a page from before it had one).
    public init?(encoded: String?) {
        guard let encoded, let values = try? JSONDecoder().decode([String: String].self, from: Data(encoded.utf8)) else { return nil }
        self.values = values
    }

    public var encoded: String { String(decoding: (try? JSONEncoder().encode(values)) ?? Data("{}".utf8), as: UTF8.self) }

    /// The fields as a person checked them (confidence 1), every problem at once. Amounts are in the form's currency,
    /// or `defaultCurrency` when it names none; `rawText` is the text read from the photo, kept as it is.
    public func fields(defaultCurrency: CurrencyCode, rawText: String?) -> Result<ReceiptFields, DomainError> {
        var errors: [FieldError] = []
        func text(_ key: String) -> String? {
            let raw = self[key].trimmingCharacters(in: .whitespacesAndNewlines)
            return raw.isEmpty ? nil : raw
        }
        var currency = defaultCurrency, currencyError: FieldError?
        if let code = text("currency") {
            do { currency = try CurrencyCode(code.uppercased()) } catch {
                currencyError = FieldError(field: "currency", message: "Choose a currency such as USD or EUR.")
            }
        }
        func money(_ key: String) -> Money? {
            guard let raw = text(key) else { return nil }
            do { return try Money.parse(typed: raw, currency: currency) } catch {
                errors.append(FieldError(field: key, message: error.message))
                return nil
            }
        }
        // In the form's order, so the list of problems reads like the form.
        let vendor = Text.clean(self["vendor"])
        if let vendor, vendor.count > Self.maxVendorLength {
            errors.append(FieldError(field: "vendor", message: "Keep the store’s name under \(Self.maxVendorLength) characters."))
        }
        var purchaseDate: CalendarDate?
        if let raw = text("purchaseDate") {
            do { purchaseDate = try CalendarDate(iso: raw) } catch {
                errors.append(FieldError(field: "purchaseDate", message: "Use a date such as 2024-03-31."))
            }
        }
        let fields = ReceiptFields(vendor: vendor, total: money("total"), tax: money("tax"), purchaseDate: purchaseDate, rawText: rawText, confidence: 1)
        if let currencyError { errors.append(currencyError) }
        return errors.isEmpty ? .success(fields) : .failure(.validation(errors))
    }

    /// These values, posted from a form that showed `base`, merged onto `saved` (see `FormMerge`).
    public func merged(base: ReceiptFormValues, saved: ReceiptFormValues) -> (values: ReceiptFormValues, conflicts: [String]) {
        let merge = FormMerge.merge(Self.fields, mine: values, base: base.values, saved: saved.values) { field, value in
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            return field == "currency" ? trimmed.uppercased() : trimmed
        }
        return (ReceiptFormValues(merge.values), merge.conflicts)
    }
}

/// A receipt's fields were saved by someone else (or read again) while this edit was open, and both changed the same
/// fields differently: nothing was saved.
public struct ReceiptEditConflict: Error, Sendable {
    /// The receipt as it is now.
    public let current: ReceiptListing
    /// The fields both changed.
    public let fields: [String]
    /// The form to show again: the saved values, with this edit's where both changed a field.
    public let proposed: ReceiptFormValues
}
