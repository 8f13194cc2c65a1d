/// The API's description, served at `/api/v1/openapi.json`; a test checks every route in it answers.
enum OpenAPI {
    static let document = #"""
    {
      "openapi": "3.1.0",
      "info": { "title": "Nestory API", "version": "1",
        "description": "Everything the web app does, as JSON. Sign in through the web form: the session cookie authenticates requests, and every state-changing request carries the session's CSRF token in the X-CSRF-Token header (it is in the page's csrf-token meta tag). Errors are {\"error\": {\"code\", \"message\", \"fields\"?, \"requestID\"?}}. Money is {amount: \"12.50\", currency: \"USD\", minorUnits: 1250}; dates are YYYY-MM-DD. Every POST takes an Idempotency-Key: a replay of the same request with the same key gets the first answer again (with Idempotent-Replayed: true) and does nothing twice. When the person's app lock has locked the session (after their chosen time without use), every request but GET /session answers 423 with the code locked until the session is unlocked in the web app (password or passkey); the page's own background requests carry X-Nestory-Background: 1 and do not count as use." },
      "servers": [{ "url": "/api/v1" }],
      "components": {
        "securitySchemes": { "session": { "type": "apiKey", "in": "cookie", "name": "nestory_session" } },
        "parameters": {
          "IdempotencyKey": { "name": "Idempotency-Key", "in": "header", "required": false,
            "schema": { "type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x20-\\x7E]+$" },
            "description": "A key the client makes for one request (a UUID, say) and sends again when it repeats that request, e.g. replaying an offline queue after a lost response. Kept per household for 24 hours (api.idempotencyWindowHours): the same request again gets the stored status and body with the header Idempotent-Replayed: true, and nothing is done twice; the same key with a different method, path or body is 422 (idempotency_key_reused); while the first is still running, 409 (idempotency_key_in_use); a key that is not 1 to 255 printable ASCII characters is 400 (invalid_idempotency_key). Answers with 5xx, and errors, are not kept: a retry runs again." }
        },
        "responses": {
          "Locked": { "description": "The session is locked by the app lock: unlock it in the web app with the password or a passkey", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } }
        },
        "schemas": {
          "Error": { "type": "object", "required": ["error"], "properties": { "error": { "type": "object", "required": ["code", "message"],
            "properties": { "code": { "type": "string" }, "message": { "type": "string" },
              "fields": { "type": "array", "items": { "type": "object", "properties": { "field": { "type": "string" }, "message": { "type": "string" } } } },
              "requestID": { "type": "string" } } } } },
          "Job": { "type": "object", "description": "Background work (a report, a backup, reading a receipt): the same shape for every kind.",
            "required": ["id", "kind", "state", "progress", "attempts", "createdAt", "links"], "properties": {
            "id": { "type": "string", "format": "uuid" }, "kind": { "enum": ["report", "backup", "receipt", "restore", "import", "webhook", "valuation"] },
            "state": { "enum": ["queued", "running", "succeeded", "failed", "cancelled", "interrupted"] },
            "progress": { "type": "object", "required": ["done", "total"], "properties": { "done": { "type": "integer" }, "total": { "type": "integer", "description": "0 while unknown" } } },
            "message": { "type": "string", "description": "Safe to show: why it failed or was interrupted, or a note on what it made" },
            "errorCode": { "type": "string" }, "attempts": { "type": "integer" },
            "createdAt": { "type": "string", "format": "date-time" }, "finishedAt": { "type": "string", "format": "date-time" },
            "links": { "type": "object", "properties": { "page": { "type": "string", "description": "The page that shows the outcome" },
              "download": { "type": "string", "description": "What it made, once it succeeded" } } } } },
          "Money": { "type": "object", "required": ["amount", "currency", "minorUnits"], "properties": {
            "amount": { "type": "string", "example": "12.50" }, "currency": { "type": "string", "example": "USD" }, "minorUnits": { "type": "integer" } } },
          "ItemInput": { "type": "object", "required": ["name"], "properties": {
            "name": { "type": "string" }, "brand": { "type": "string" }, "modelNumber": { "type": "string" }, "serialNumber": { "type": "string" },
            "price": { "type": "string", "description": "Unit price as a decimal string, e.g. \"1299.99\"" },
            "currency": { "type": "string", "description": "ISO 4217; the household's when omitted" },
            "purchaseDate": { "type": "string", "format": "date" }, "roomID": { "type": "string", "format": "uuid" },
            "categoryID": { "type": "string", "format": "uuid" }, "condition": { "enum": ["new", "like_new", "good", "fair", "poor"] },
            "conditionNotes": { "type": "string" }, "barcode": { "type": "string" }, "warrantyExpiry": { "type": "string", "format": "date" },
            "tags": { "type": "array", "items": { "type": "string" } }, "notes": { "type": "string" }, "quantity": { "type": "integer", "minimum": 1 } } },
          "Item": { "type": "object", "required": ["id", "name", "currency", "quantity", "condition", "tags", "documentation", "documented"], "properties": {
            "id": { "type": "string", "format": "uuid" }, "name": { "type": "string" }, "brand": { "type": "string" }, "modelNumber": { "type": "string" },
            "serialNumber": { "type": "string" }, "price": { "$ref": "#/components/schemas/Money" }, "totalValue": { "$ref": "#/components/schemas/Money" },
            "currency": { "type": "string" }, "quantity": { "type": "integer" }, "purchaseDate": { "type": "string", "format": "date" },
            "roomID": { "type": "string" }, "categoryID": { "type": "string" }, "condition": { "type": "string" }, "tags": { "type": "array", "items": { "type": "string" } },
            "notes": { "type": "string" }, "conditionNotes": { "type": "string" }, "barcode": { "type": "string" },
            "warrantyExpiry": { "type": "string", "format": "date" }, "createdAt": { "type": "string", "format": "date-time" },
            "updatedAt": { "type": "string", "format": "date-time" }, "documented": { "type": "boolean" },
            "documentation": { "type": "object", "properties": { "hasPhoto": { "type": "boolean" }, "hasReceipt": { "type": "boolean" },
              "hasValue": { "type": "boolean" }, "hasSerial": { "type": "boolean" }, "hasRoom": { "type": "boolean" }, "hasCategory": { "type": "boolean" } } },
            "photos": { "type": "array", "items": { "$ref": "#/components/schemas/Photo" } }, "primaryPhoto": { "type": "string" } } },
          "ValueRange": { "type": "object", "required": ["value", "low", "high"], "properties": { "value": { "$ref": "#/components/schemas/Money" },
            "low": { "$ref": "#/components/schemas/Money" }, "high": { "$ref": "#/components/schemas/Money" } } },
          "Valuation": { "type": "object", "required": ["id", "itemID", "method", "confidence", "valuedOn", "sources", "createdAt"], "properties": {
            "id": { "type": "string" }, "itemID": { "type": "string", "format": "uuid" },
            "replacementCost": { "$ref": "#/components/schemas/ValueRange" }, "actualCashValue": { "$ref": "#/components/schemas/ValueRange" },
            "method": { "enum": ["market", "offline", "manual"] }, "confidence": { "enum": ["low", "medium", "high"] },
            "valuedOn": { "type": "string", "format": "date" }, "explanation": { "type": "string", "description": "How the figure was reached (the offline formula with its inputs)" },
            "sources": { "type": "array", "items": { "type": "object", "properties": { "url": { "type": "string" }, "title": { "type": "string" },
              "amount": { "$ref": "#/components/schemas/Money" }, "fetchedAt": { "type": "string", "format": "date-time" } } } },
            "createdAt": { "type": "string", "format": "date-time" } } },
          "Photo": { "type": "object", "properties": { "id": { "type": "string" }, "url": { "type": "string" }, "contentType": { "type": "string" },
            "byteCount": { "type": "integer" }, "isPrimary": { "type": "boolean" } } }
        }
      },
      "security": [{ "session": [] }],
      "paths": {
        "/session": { "get": { "summary": "This session's app lock: whether it is locked, the person's timeout, their passkeys (answers while locked)",
            "responses": { "200": { "description": "The lock's state", "content": { "application/json": { "schema": { "type": "object", "required": ["locked", "lockMinutes", "lockSeconds", "passkeys"], "properties": {
              "locked": { "type": "boolean" }, "lockMinutes": { "type": "integer", "description": "0: never locks" },
              "lockSeconds": { "type": "integer", "description": "The timeout on this server, in seconds" }, "passkeys": { "type": "integer" } } } } } },
              "401": { "description": "Not signed in", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } } },
        "/summary": { "get": { "summary": "Summary figures", "responses": { "200": { "description": "Item count, value per currency, documentation score and the counts behind it" }, "401": { "description": "Not signed in", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } } },
        "/plan": { "get": { "summary": "The household's plan: Free or Pro, what is unlocked, the Free limits (null where lifted) and the item count. A request that would cross a Free limit is answered 402 with the code pro_required and a message that says the limit",
          "responses": { "200": { "description": "The plan", "content": { "application/json": { "schema": { "type": "object",
            "required": ["plan", "source", "features", "itemCount", "limits"], "properties": {
              "plan": { "enum": ["free", "pro"] }, "source": { "enum": ["free", "licence", "instance_setting"] },
              "features": { "type": "array", "items": { "enum": ["unlimited-items", "unlimited-loss-list", "report-photos", "csv-export"] } },
              "itemCount": { "type": "integer" },
              "limits": { "type": "object", "properties": { "items": { "type": ["integer", "null"] }, "lossListItems": { "type": ["integer", "null"] },
                "reportPhotos": { "type": "boolean" }, "csvExport": { "type": "boolean" } } },
              "licence": { "type": "object", "properties": { "licensee": { "type": "string" }, "scope": { "enum": ["household", "instance"] },
                "issued": { "type": "string", "format": "date" }, "expires": { "type": ["string", "null"], "format": "date" } } } } } } } } } } },
        "/items/{id}/valuations": {
          "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } }],
          "get": { "summary": "The item's valuations, newest first (its history; the purchase price is never changed by them)",
            "responses": { "200": { "description": "Valuations", "content": { "application/json": { "schema": { "type": "object", "properties": {
              "items": { "type": "array", "items": { "$ref": "#/components/schemas/Valuation" } } } } } } }, "404": { "description": "Not in this household" } } },
          "post": { "summary": "Keep a value entered by hand (an appraisal, a quote): replacement cost and/or actual cash value in the item's currency",
            "parameters": [{ "$ref": "#/components/parameters/IdempotencyKey" }],
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "properties": {
              "replacementCost": { "type": "string", "example": "1299.00" }, "actualCashValue": { "type": "string" },
              "date": { "type": "string", "format": "date", "description": "The day the value is for; today when omitted; not in the future" },
              "note": { "type": "string", "maxLength": 500 } } } } } },
            "responses": { "201": { "description": "Kept", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Valuation" } } } },
              "404": { "description": "Not in this household" }, "422": { "description": "Invalid fields", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } }
        },
        "/items/{id}/valuations/offline": {
          "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } }],
          "post": { "summary": "Keep an offline estimate: ACV = RCV × max(floor, 1 − age/life) × condition factor, from the latest market or hand-entered replacement cost, else the purchase price",
            "parameters": [{ "$ref": "#/components/parameters/IdempotencyKey" }],
            "responses": { "201": { "description": "Kept", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Valuation" } } } },
              "404": { "description": "Not in this household" }, "422": { "description": "No price or replacement cost to start from" } } }
        },
        "/valuations/photos": { "post": { "summary": "Keep a photo to value a new thing from (the body is the image; no item is made until its proposal is saved in a batch's review). Kept 30 days",
          "parameters": [{ "$ref": "#/components/parameters/IdempotencyKey" }],
          "requestBody": { "required": true, "content": { "image/*": { "schema": { "type": "string", "format": "binary" } } } },
          "responses": { "201": { "description": "Kept", "content": { "application/json": { "schema": { "type": "object", "required": ["id", "sha256", "url"],
            "properties": { "id": { "type": "string", "format": "uuid" }, "sha256": { "type": "string" }, "url": { "type": "string" } } } } } },
            "413": { "description": "Too large" }, "422": { "description": "Not an accepted image" } } } },
        "/valuations/history": { "get": { "summary": "The household's valuation history by day (the day each value is for), newest first, with each day's count and totals per currency",
          "responses": { "200": { "description": "Days", "content": { "application/json": { "schema": { "type": "object", "properties": { "items": { "type": "array", "items": {
            "type": "object", "required": ["day", "count", "replacementCost", "actualCashValue"], "properties": { "day": { "type": "string", "format": "date" }, "count": { "type": "integer" },
            "replacementCost": { "type": "array", "items": { "$ref": "#/components/schemas/Money" } },
            "actualCashValue": { "type": "array", "items": { "$ref": "#/components/schemas/Money" } } } } } } } } } } } } },
        "/charts": { "get": { "summary": "Value by category and items by room", "responses": { "200": { "description": "Chart data" } } } },
        "/rooms": { "get": { "summary": "The household's rooms, in order", "responses": { "200": { "description": "Rooms" } } } },
        "/categories": { "get": { "summary": "The household's categories, in order", "responses": { "200": { "description": "Categories" } } } },
        "/items": {
          "get": { "summary": "Search, filter, sort and page items", "parameters": [
              { "name": "q", "in": "query", "schema": { "type": "string" }, "description": "Words to find (plain text; never query syntax)" },
              { "name": "filter", "in": "query", "schema": { "enum": ["all", "photo", "receipt", "value", "high"] } },
              { "name": "room", "in": "query", "schema": { "type": "string" } }, { "name": "category", "in": "query", "schema": { "type": "string" } },
              { "name": "tag", "in": "query", "schema": { "type": "string" } }, { "name": "sort", "in": "query", "schema": { "enum": ["name", "value", "newest"] } },
              { "name": "limit", "in": "query", "schema": { "type": "integer", "maximum": 200 } },
              { "name": "after", "in": "query", "schema": { "type": "string" }, "description": "nextCursor of the previous page" } ],
            "responses": { "200": { "description": "A page", "content": { "application/json": { "schema": { "type": "object", "properties": {
              "items": { "type": "array", "items": { "$ref": "#/components/schemas/Item" } }, "nextCursor": { "type": "string" } } } } } } } },
          "post": { "summary": "Add an item",  "parameters": [{ "$ref": "#/components/parameters/IdempotencyKey" }],"requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ItemInput" } } } },
            "responses": { "201": { "description": "Created", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Item" } } } },
              "402": { "description": "Nestory Free keeps up to 100 items (code pro_required); nothing was added", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "422": { "description": "Invalid fields", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } }
        },
        "/items/{id}": {
          "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } }],
          "get": { "summary": "An item with its photos", "responses": { "200": { "description": "The item" }, "404": { "description": "Not in this household" } } },
          "put": { "summary": "Replace an item's fields", "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ItemInput" } } } },
            "responses": { "200": { "description": "Updated" }, "404": { "description": "Not in this household" }, "422": { "description": "Invalid fields" } } },
          "delete": { "summary": "Delete an item and its photos (receipts are kept)", "responses": { "204": { "description": "Deleted" }, "404": { "description": "Not in this household" } } }
        },
        "/items/{id}/photos": {
          "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } }],
          "post": { "summary": "Add a photo: the body is the image (JPEG, PNG, HEIC or WebP, at most 40 MB)", "parameters": [{ "$ref": "#/components/parameters/IdempotencyKey" }],
            "requestBody": { "required": true, "content": { "image/*": { "schema": { "type": "string", "format": "binary" } } } },
            "responses": { "201": { "description": "Stored byte-exact", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Photo" } } } },
              "413": { "description": "Too large" }, "422": { "description": "Not an accepted image" } } }
        },
        "/items/{id}/photos/{photoID}": {
          "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } },
                         { "name": "photoID", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } }],
          "delete": { "summary": "Remove a photo from the item (the last one too)", "responses": { "204": { "description": "Removed" },
            "404": { "description": "Not a photo of this item", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } }
        },
        "/items/{id}/photos/{photoID}/main": {
          "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } },
                         { "name": "photoID", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } }],
          "post": { "summary": "Make a photo the item's main one",  "parameters": [{ "$ref": "#/components/parameters/IdempotencyKey" }],"responses": {
            "200": { "description": "The item", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Item" } } } },
            "404": { "description": "Not a photo of this item", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } }
        },
        "/items/{id}/photos/order": {
          "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } }],
          "put": { "summary": "Put the item's photos in order; the first becomes the main photo",
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["photoIDs"],
              "properties": { "photoIDs": { "type": "array", "description": "Every photo of the item, once each", "items": { "type": "string", "format": "uuid" } } } } } } },
            "responses": { "200": { "description": "The item", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Item" } } } },
              "400": { "description": "Not a JSON object with photoIDs", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "404": { "description": "No such item", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "422": { "description": "Not each of the item's photos exactly once", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } }
        },
        "/barcodes/decode": {
          "post": { "summary": "Find barcodes (EAN-13, EAN-8, UPC-A, UPC-E, Code 128, QR) in a picture: a camera frame or a photo, at most 15 MB",
            "parameters": [{ "$ref": "#/components/parameters/IdempotencyKey" }, { "name": "region", "in": "query", "schema": { "type": "string" }, "description": "x,y,width,height as fractions of the picture: only look there" }],
            "requestBody": { "required": true, "content": { "image/*": { "schema": { "type": "string", "format": "binary" } } } },
            "responses": { "200": { "description": "The codes found (an empty list when none)", "content": { "application/json": { "schema": { "type": "object", "properties": {
              "codes": { "type": "array", "items": { "type": "object", "properties": { "format": { "type": "string" }, "text": { "type": "string" },
                "gtin": { "type": "string", "description": "GTIN-14 key, for product codes" }, "gtin13": { "type": "string" },
                "confidence": { "enum": ["low", "medium", "high"] }, "pass": { "type": "string" },
                "uncertain": { "type": "boolean", "description": "True when only one decoder read the code, with nothing independent reading the same digits, or another code was read at the same spot: show it, but ask the person to check the digits against the label" } } } } } } } } },
              "413": { "description": "Too large" }, "422": { "description": "Not an image, or a damaged one" } } }
        },
        "/receipts": {
          "post": { "summary": "Add a receipt: the body is its photo (at most 40 MB). Stored at once, read in the background (tesseract); `item` links it",
            "parameters": [{ "$ref": "#/components/parameters/IdempotencyKey" }, { "name": "item", "in": "query", "schema": { "type": "string", "format": "uuid" } }],
            "requestBody": { "required": true, "content": { "image/*": { "schema": { "type": "string", "format": "binary" } } } },
            "responses": { "201": { "description": "Stored", "content": { "application/json": { "schema": { "type": "object", "properties": {
              "id": { "type": "string", "format": "uuid" }, "next": { "type": "string", "description": "The review page" } } } } } },
              "413": { "description": "Too large" }, "422": { "description": "Empty, or not an image" } } }
        },
        "/receipts/{receiptID}": {
          "parameters": [{ "name": "receiptID", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } }],
          "get": { "summary": "Whether the receipt is still being read", "responses": { "200": { "description": "The state", "content": { "application/json": { "schema": { "type": "object", "properties": {
              "id": { "type": "string" }, "state": { "enum": ["reading", "done", "failed"] }, "message": { "type": "string" },
              "job": { "type": "string", "format": "uuid", "description": "The reading's job, at /jobs/{jobID}" } } } } } },
            "404": { "description": "Not in this household" } } }
        },
        "/jobs/{jobID}": {
          "parameters": [{ "name": "jobID", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } }],
          "get": { "summary": "A background job's state and progress (reports, backups, receipt reading)",
            "responses": { "200": { "description": "The job", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Job" } } } },
              "404": { "description": "Not in this household", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } }
        },
        "/jobs/{jobID}/cancel": {
          "parameters": [{ "name": "jobID", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } }],
          "post": { "summary": "Cancel a job: a queued one at once, a running one as soon as it notices (a finished one is left as it is)", "parameters": [{ "$ref": "#/components/parameters/IdempotencyKey" }],
            "responses": { "200": { "description": "The job as it now is", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Job" } } } },
              "404": { "description": "Not in this household", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } }
        },
        "/events": {
          "post": { "summary": "Count one use of the capture screen (per household and UTC day; at most 10,000 a day per event). Only the name is kept: no ids, names, images or free text",
            "parameters": [{ "$ref": "#/components/parameters/IdempotencyKey" }],
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["event"], "properties": {
              "event": { "enum": ["scan_open", "capture_photo", "pick_gallery", "permission_denied", "open_settings", "scan_retry", "scan_disabled", "queued", "replayed"] } } } } } },
            "responses": { "204": { "description": "Counted" },
              "400": { "description": "Not a JSON object with event", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "422": { "description": "Not one of the events", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } }
        },
        "/client-errors": {
          "post": { "summary": "Report a non-fatal error in the page to the server's log (at most 5 a minute per session). The message is cut to 300 characters and loses email addresses, UUIDs, runs of 6 or more digits and query strings; the page is kept as its path only",
            "parameters": [{ "$ref": "#/components/parameters/IdempotencyKey" }],
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["kind", "message", "page"], "properties": {
              "kind": { "enum": ["uncaught", "upload"] }, "message": { "type": "string" }, "page": { "type": "string", "description": "The page's path, e.g. /capture" } } } } } },
            "responses": { "204": { "description": "Logged" },
              "400": { "description": "Not a JSON object with kind, message and page", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "422": { "description": "kind is not uncaught or upload", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "429": { "description": "Too many reports; Retry-After says when to send again", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } }
        },
        "/products/{code}": {
          "parameters": [{ "name": "code", "in": "path", "required": true, "schema": { "type": "string" }, "description": "A barcode in any form (UPC-A, UPC-E, EAN-13, EAN-8) or a QR code's text" }],
          "get": { "summary": "Look a code up: the household's items, the local catalogue, then online providers if the household allows them",
            "responses": { "200": { "description": "What is known", "content": { "application/json": { "schema": { "type": "object", "properties": {
              "code": { "type": "string" }, "gtin": { "type": "string" }, "existingItems": { "type": "array", "items": { "type": "string", "format": "uuid" } },
              "notices": { "type": "array", "items": { "type": "string" } },
              "match": { "type": "object", "properties": { "source": { "type": "string" }, "sourceName": { "type": "string" }, "name": { "type": "string" },
                "brand": { "type": "string" }, "category": { "type": "string" }, "imageURL": { "type": "string" }, "itemID": { "type": "string" } } } } } } } } } }
        }
      }
    }
    """#
}
