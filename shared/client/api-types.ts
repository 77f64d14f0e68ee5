/**
 * The HTTP API's paths, operations and schemas as TypeScript types, generated from
 * `docs/openapi.json` by openapi-typescript (`npm run openapi`): do not edit.
 */
export type paths = {
    "/topics/{topic}/api/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Publish events to a topic
         * @description Events in the topic's input schema. A CloudEvents topic also takes one event in binary mode: the `ce-` headers with the data as the body. The answer comes once every event is durably queued.
         */
        post: operations["postTopicsTopicApiEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/iam/topics/{topic}/api/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Publish events to a topic with AWS credentials
         * @description As `POST /topics/{topic}/api/events`, authorised by IAM (`execute-api:Invoke` on this route) instead of a topic key.
         */
        post: operations["postIamTopicsTopicApiEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/namespaces/{namespace}/topics/{topicAction}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Publish CloudEvents to a namespace topic
         * @description As the namespaces SDK sends them: `POST .../topics/<topic>:publish`; one event in binary mode has its attributes as `ce-` headers and its data as the body.
         */
        post: operations["postNamespacesNamespaceTopicsTopicAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/eventSubscriptions/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Validate a subscription's endpoint (the validation URL)
         * @description The URL sent to a webhook in the validation event's `validationUrl`: a GET validates the endpoint.
         */
        get: operations["getEventSubscriptionsValidate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The console's page */
        get: operations["getConsole"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The console's scripts and stylesheet */
        get: operations["getConsoleFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/portal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The portal's page */
        get: operations["getPortal"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["getOpenapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/egress": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where requests to endpoints leave from
         * @description The fixed public addresses deliveries come from, for receivers' allow-lists: the Elastic IPs of the NAT gateways the stack's `egress` prop made (or the addresses named for an existing VPC). Empty without static egress.
         */
        get: operations["getAdminEgress"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a console or portal session
         * @description A short-lived bearer token for the console (`operator`) or the portal (`portal`, scoped).
         */
        post: operations["postAdminSessions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/sessions/revokeAll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke every session */
        post: operations["postAdminSessionsRevokeAll"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List topics */
        get: operations["getAdminTopics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a topic */
        get: operations["getAdminTopicsTopic"];
        /**
         * Create or update a topic
         * @description Creates the topic (201) or updates its tags and settings (200); its input schema cannot change.
         */
        put: operations["putAdminTopicsTopic"];
        post?: never;
        /** Delete a topic */
        delete: operations["deleteAdminTopicsTopic"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/listKeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** List a topic's keys */
        post: operations["postAdminTopicsTopicListKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/regenerateKey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Regenerate one of the keys */
        post: operations["postAdminTopicsTopicRegenerateKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventTypes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the event types of a topic
         * @description The catalog, sorted by name; each type without its schema and example (show the type for them).
         */
        get: operations["getAdminTopicsTopicEventTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventTypes/{eventType}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show an event type of a topic */
        get: operations["getAdminTopicsTopicEventTypesEventType"];
        /**
         * Create or replace an event type of a topic
         * @description Creates the type (201) or replaces it whole (200). A schema must be a valid JSON Schema draft 2020-12 that compiles, and an example given with one must match it (400 naming the field and what failed). At most 100 types per topic. Answered once publishers see the change: a topic with validateEvents checks the next publish against it.
         */
        put: operations["putAdminTopicsTopicEventTypesEventType"];
        post?: never;
        /** Delete an event type of a topic */
        delete: operations["deleteAdminTopicsTopicEventTypesEventType"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a topic's event subscriptions */
        get: operations["getAdminTopicsTopicEventSubscriptions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show an event subscription */
        get: operations["getAdminTopicsTopicEventSubscriptionsSubscription"];
        /**
         * Create or update an event subscription
         * @description Creates the subscription (201) or replaces its definition (200). A new webhook endpoint is asked to agree first when the stack validates endpoints (`provisioningState` `AwaitingManualAction` until it does). Secret header values, signing secrets and client secrets are sealed and never shown. 409: the subscription was changed by another request at the same time. 503: a secret was given and the stack has no key to seal it. The dead-letter notices' topic (`gridwire-deadletters`) is made with its first subscription.
         */
        put: operations["putAdminTopicsTopicEventSubscriptionsSubscription"];
        post?: never;
        /** Delete an event subscription */
        delete: operations["deleteAdminTopicsTopicEventSubscriptionsSubscription"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/getFullUrl": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Show a subscription's full endpoint URL
         * @description The webhook's whole endpoint URL (documents show it without its query string), and an OAuth 2.0 client's whole token URL. 409: the subscription delivers to an AWS resource. 503: a query string is sealed and the stack has no key to open it.
         */
        post: operations["postAdminTopicsTopicEventSubscriptionsSubscriptionGetFullUrl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Look up an event's deliveries, or list the message log
         * @description With `eventId`, that event's deliveries in the window; without it, a page of the log, newest first. What the log keeps follows the subscription's `deliveryLog`.
         */
        get: operations["getAdminTopicsTopicEventSubscriptionsSubscriptionDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resend a logged event
         * @description Sends a logged event again to this subscription as a new delivery, if the subscription's filter as it is now lets it through.
         */
        post: operations["postAdminTopicsTopicEventSubscriptionsSubscriptionResend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/getSigningSecret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Show the signing secrets
         * @description What receivers verify with: the current secret (or public key) and the earlier ones still honoured.
         */
        post: operations["postAdminTopicsTopicEventSubscriptionsSubscriptionGetSigningSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/rotateSigningSecret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret
         * @description Makes a new secret current (given, or made) and keeps honouring the earlier ones for `keepPreviousForMinutes`.
         */
        post: operations["postAdminTopicsTopicEventSubscriptionsSubscriptionRotateSigningSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show the endpoint's health */
        get: operations["getAdminTopicsTopicEventSubscriptionsSubscriptionHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable the endpoint again
         * @description Resets its health: healthy, out of probation, and taking deliveries again if it was disabled.
         */
        post: operations["postAdminTopicsTopicEventSubscriptionsSubscriptionEnable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause deliveries
         * @description The subscription's events are held, their time to live running, until it is resumed.
         */
        post: operations["postAdminTopicsTopicEventSubscriptionsSubscriptionPause"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resume deliveries */
        post: operations["postAdminTopicsTopicEventSubscriptionsSubscriptionResume"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start the endpoint's validation again
         * @description For an endpoint that has not agreed: a new validation code and window, and the handshake sent again. An endpoint that agreed (or never had to) is left as it is.
         */
        post: operations["postAdminTopicsTopicEventSubscriptionsSubscriptionValidate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/sendTestEvent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Sends one `Gridwire.TestEvent` event to this subscription only, as a new delivery; its filter is not applied.
         */
        post: operations["postAdminTopicsTopicEventSubscriptionsSubscriptionSendTestEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/replays": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the subscription's replays */
        get: operations["getAdminTopicsTopicEventSubscriptionsSubscriptionReplays"];
        put?: never;
        /** Replay events from the topic's archive */
        post: operations["postAdminTopicsTopicEventSubscriptionsSubscriptionReplays"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/replays/{replayId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a replay */
        get: operations["getAdminTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId"];
        put?: never;
        post?: never;
        /** Cancel a replay */
        delete: operations["deleteAdminTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recover failed deliveries
         * @description Sends again, as new deliveries, the deliveries of the range that ended without success: dropped ones from the message log, dead-lettered ones from the dead letters.
         */
        post: operations["postAdminTopicsTopicEventSubscriptionsSubscriptionRecover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/deadLetters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the subscription's dead-letter blobs */
        get: operations["getAdminTopicsTopicEventSubscriptionsSubscriptionDeadLetters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/deadLetters/blob": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a dead-letter blob */
        get: operations["getAdminTopicsTopicEventSubscriptionsSubscriptionDeadLettersBlob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topics/{topic}/eventSubscriptions/{subscription}/deadLetters/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay dead letters
         * @description Sends the events of dead-letter blobs (by keys or window) again as new deliveries, and marks the blobs replayed.
         */
        post: operations["postAdminTopicsTopicEventSubscriptionsSubscriptionDeadLettersReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List namespaces */
        get: operations["getAdminNamespaces"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a namespace */
        get: operations["getAdminNamespacesNamespace"];
        /** Create or update a namespace */
        put: operations["putAdminNamespacesNamespace"];
        post?: never;
        /** Delete a namespace */
        delete: operations["deleteAdminNamespacesNamespace"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/listKeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** List a namespace's keys */
        post: operations["postAdminNamespacesNamespaceListKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/regenerateKey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Regenerate one of the keys */
        post: operations["postAdminNamespacesNamespaceRegenerateKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a namespace's topics */
        get: operations["getAdminNamespacesNamespaceTopics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a namespace topic */
        get: operations["getAdminNamespacesNamespaceTopicsTopic"];
        /** Create or update a namespace topic */
        put: operations["putAdminNamespacesNamespaceTopicsTopic"];
        post?: never;
        /** Delete a namespace topic */
        delete: operations["deleteAdminNamespacesNamespaceTopicsTopic"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventTypes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the event types of a namespace topic
         * @description The catalog, sorted by name; each type without its schema and example (show the type for them).
         */
        get: operations["getAdminNamespacesNamespaceTopicsTopicEventTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventTypes/{eventType}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show an event type of a namespace topic */
        get: operations["getAdminNamespacesNamespaceTopicsTopicEventTypesEventType"];
        /**
         * Create or replace an event type of a namespace topic
         * @description Creates the type (201) or replaces it whole (200). A schema must be a valid JSON Schema draft 2020-12 that compiles, and an example given with one must match it (400 naming the field and what failed). At most 100 types per topic. Answered once publishers see the change: a topic with validateEvents checks the next publish against it.
         */
        put: operations["putAdminNamespacesNamespaceTopicsTopicEventTypesEventType"];
        post?: never;
        /** Delete an event type of a namespace topic */
        delete: operations["deleteAdminNamespacesNamespaceTopicsTopicEventTypesEventType"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a namespace topic's event subscriptions */
        get: operations["getAdminNamespacesNamespaceTopicsTopicEventSubscriptions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a namespace event subscription */
        get: operations["getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscription"];
        /**
         * Create or update a namespace event subscription
         * @description Creates the subscription (201) or replaces its definition (200). A new webhook endpoint is asked to agree first when the stack validates endpoints (`provisioningState` `AwaitingManualAction` until it does). Secret header values, signing secrets and client secrets are sealed and never shown. 409: the subscription was changed by another request at the same time. 503: a secret was given and the stack has no key to seal it. `eventTimeToLive` may not exceed the topic's retention, and defaults to it.
         */
        put: operations["putAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscription"];
        post?: never;
        /** Delete a namespace event subscription */
        delete: operations["deleteAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscription"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/getFullUrl": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Show a namespace subscription's full endpoint URL
         * @description The webhook's whole endpoint URL (documents show it without its query string), and an OAuth 2.0 client's whole token URL. 409: the subscription delivers to an AWS resource. 503: a query string is sealed and the stack has no key to open it.
         */
        post: operations["postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionGetFullUrl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show the endpoint's health */
        get: operations["getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Look up an event's deliveries, or list the message log
         * @description With `eventId`, that event's deliveries in the window; without it, a page of the log, newest first. What the log keeps follows the subscription's `deliveryLog`.
         */
        get: operations["getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resend a logged event
         * @description Sends a logged event again to this subscription as a new delivery, if the subscription's filter as it is now lets it through.
         */
        post: operations["postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionResend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/getSigningSecret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Show the signing secrets
         * @description What receivers verify with: the current secret (or public key) and the earlier ones still honoured.
         */
        post: operations["postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionGetSigningSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/rotateSigningSecret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret
         * @description Makes a new secret current (given, or made) and keeps honouring the earlier ones for `keepPreviousForMinutes`.
         */
        post: operations["postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionRotateSigningSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable the endpoint again
         * @description Resets its health: healthy, out of probation, and taking deliveries again if it was disabled.
         */
        post: operations["postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionEnable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause deliveries
         * @description The subscription's events are held, their time to live running, until it is resumed.
         */
        post: operations["postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionPause"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resume deliveries */
        post: operations["postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionResume"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start the endpoint's validation again
         * @description For an endpoint that has not agreed: a new validation code and window, and the handshake sent again. An endpoint that agreed (or never had to) is left as it is.
         */
        post: operations["postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionValidate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/sendTestEvent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Sends one `Gridwire.TestEvent` event to this subscription only, as a new delivery; its filter is not applied.
         */
        post: operations["postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionSendTestEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/replays": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the subscription's replays */
        get: operations["getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplays"];
        put?: never;
        /** Replay events from the topic's archive */
        post: operations["postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplays"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/replays/{replayId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a replay */
        get: operations["getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId"];
        put?: never;
        post?: never;
        /** Cancel a replay */
        delete: operations["deleteAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recover failed deliveries
         * @description Sends again, as new deliveries, the deliveries of the range that ended without success: dropped ones from the message log, dead-lettered ones from the dead letters.
         */
        post: operations["postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionRecover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/deadLetters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the subscription's dead-letter blobs */
        get: operations["getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeadLetters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/deadLetters/blob": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a dead-letter blob */
        get: operations["getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeadLettersBlob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/deadLetters/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay dead letters
         * @description Sends the events of dead-letter blobs (by keys or window) again as new deliveries, and marks the blobs replayed.
         */
        post: operations["postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeadLettersReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/egress": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where requests to endpoints leave from
         * @description The fixed public addresses deliveries come from, for receivers' allow-lists: the Elastic IPs of the NAT gateways the stack's `egress` prop made (or the addresses named for an existing VPC). Empty without static egress.
         */
        get: operations["getConsoleApiEgress"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List topics */
        get: operations["getConsoleApiTopics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a topic */
        get: operations["getConsoleApiTopicsTopic"];
        /**
         * Create or update a topic
         * @description Creates the topic (201) or updates its tags and settings (200); its input schema cannot change.
         */
        put: operations["putConsoleApiTopicsTopic"];
        post?: never;
        /** Delete a topic */
        delete: operations["deleteConsoleApiTopicsTopic"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/listKeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** List a topic's keys */
        post: operations["postConsoleApiTopicsTopicListKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/regenerateKey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Regenerate one of the keys */
        post: operations["postConsoleApiTopicsTopicRegenerateKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventTypes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the event types of a topic
         * @description The catalog, sorted by name; each type without its schema and example (show the type for them).
         */
        get: operations["getConsoleApiTopicsTopicEventTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventTypes/{eventType}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show an event type of a topic */
        get: operations["getConsoleApiTopicsTopicEventTypesEventType"];
        /**
         * Create or replace an event type of a topic
         * @description Creates the type (201) or replaces it whole (200). A schema must be a valid JSON Schema draft 2020-12 that compiles, and an example given with one must match it (400 naming the field and what failed). At most 100 types per topic. Answered once publishers see the change: a topic with validateEvents checks the next publish against it.
         */
        put: operations["putConsoleApiTopicsTopicEventTypesEventType"];
        post?: never;
        /** Delete an event type of a topic */
        delete: operations["deleteConsoleApiTopicsTopicEventTypesEventType"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a topic's event subscriptions */
        get: operations["getConsoleApiTopicsTopicEventSubscriptions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show an event subscription */
        get: operations["getConsoleApiTopicsTopicEventSubscriptionsSubscription"];
        /**
         * Create or update an event subscription
         * @description Creates the subscription (201) or replaces its definition (200). A new webhook endpoint is asked to agree first when the stack validates endpoints (`provisioningState` `AwaitingManualAction` until it does). Secret header values, signing secrets and client secrets are sealed and never shown. 409: the subscription was changed by another request at the same time. 503: a secret was given and the stack has no key to seal it. The dead-letter notices' topic (`gridwire-deadletters`) is made with its first subscription.
         */
        put: operations["putConsoleApiTopicsTopicEventSubscriptionsSubscription"];
        post?: never;
        /** Delete an event subscription */
        delete: operations["deleteConsoleApiTopicsTopicEventSubscriptionsSubscription"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/getFullUrl": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Show a subscription's full endpoint URL
         * @description The webhook's whole endpoint URL (documents show it without its query string), and an OAuth 2.0 client's whole token URL. 409: the subscription delivers to an AWS resource. 503: a query string is sealed and the stack has no key to open it.
         */
        post: operations["postConsoleApiTopicsTopicEventSubscriptionsSubscriptionGetFullUrl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Look up an event's deliveries, or list the message log
         * @description With `eventId`, that event's deliveries in the window; without it, a page of the log, newest first. What the log keeps follows the subscription's `deliveryLog`.
         */
        get: operations["getConsoleApiTopicsTopicEventSubscriptionsSubscriptionDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resend a logged event
         * @description Sends a logged event again to this subscription as a new delivery, if the subscription's filter as it is now lets it through.
         */
        post: operations["postConsoleApiTopicsTopicEventSubscriptionsSubscriptionResend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/getSigningSecret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Show the signing secrets
         * @description What receivers verify with: the current secret (or public key) and the earlier ones still honoured.
         */
        post: operations["postConsoleApiTopicsTopicEventSubscriptionsSubscriptionGetSigningSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/rotateSigningSecret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret
         * @description Makes a new secret current (given, or made) and keeps honouring the earlier ones for `keepPreviousForMinutes`.
         */
        post: operations["postConsoleApiTopicsTopicEventSubscriptionsSubscriptionRotateSigningSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show the endpoint's health */
        get: operations["getConsoleApiTopicsTopicEventSubscriptionsSubscriptionHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable the endpoint again
         * @description Resets its health: healthy, out of probation, and taking deliveries again if it was disabled.
         */
        post: operations["postConsoleApiTopicsTopicEventSubscriptionsSubscriptionEnable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause deliveries
         * @description The subscription's events are held, their time to live running, until it is resumed.
         */
        post: operations["postConsoleApiTopicsTopicEventSubscriptionsSubscriptionPause"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resume deliveries */
        post: operations["postConsoleApiTopicsTopicEventSubscriptionsSubscriptionResume"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start the endpoint's validation again
         * @description For an endpoint that has not agreed: a new validation code and window, and the handshake sent again. An endpoint that agreed (or never had to) is left as it is.
         */
        post: operations["postConsoleApiTopicsTopicEventSubscriptionsSubscriptionValidate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/sendTestEvent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Sends one `Gridwire.TestEvent` event to this subscription only, as a new delivery; its filter is not applied.
         */
        post: operations["postConsoleApiTopicsTopicEventSubscriptionsSubscriptionSendTestEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/replays": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the subscription's replays */
        get: operations["getConsoleApiTopicsTopicEventSubscriptionsSubscriptionReplays"];
        put?: never;
        /** Replay events from the topic's archive */
        post: operations["postConsoleApiTopicsTopicEventSubscriptionsSubscriptionReplays"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/replays/{replayId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a replay */
        get: operations["getConsoleApiTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId"];
        put?: never;
        post?: never;
        /** Cancel a replay */
        delete: operations["deleteConsoleApiTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recover failed deliveries
         * @description Sends again, as new deliveries, the deliveries of the range that ended without success: dropped ones from the message log, dead-lettered ones from the dead letters.
         */
        post: operations["postConsoleApiTopicsTopicEventSubscriptionsSubscriptionRecover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/deadLetters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the subscription's dead-letter blobs */
        get: operations["getConsoleApiTopicsTopicEventSubscriptionsSubscriptionDeadLetters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/deadLetters/blob": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a dead-letter blob */
        get: operations["getConsoleApiTopicsTopicEventSubscriptionsSubscriptionDeadLettersBlob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/topics/{topic}/eventSubscriptions/{subscription}/deadLetters/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay dead letters
         * @description Sends the events of dead-letter blobs (by keys or window) again as new deliveries, and marks the blobs replayed.
         */
        post: operations["postConsoleApiTopicsTopicEventSubscriptionsSubscriptionDeadLettersReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List namespaces */
        get: operations["getConsoleApiNamespaces"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a namespace */
        get: operations["getConsoleApiNamespacesNamespace"];
        /** Create or update a namespace */
        put: operations["putConsoleApiNamespacesNamespace"];
        post?: never;
        /** Delete a namespace */
        delete: operations["deleteConsoleApiNamespacesNamespace"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/listKeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** List a namespace's keys */
        post: operations["postConsoleApiNamespacesNamespaceListKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/regenerateKey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Regenerate one of the keys */
        post: operations["postConsoleApiNamespacesNamespaceRegenerateKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a namespace's topics */
        get: operations["getConsoleApiNamespacesNamespaceTopics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a namespace topic */
        get: operations["getConsoleApiNamespacesNamespaceTopicsTopic"];
        /** Create or update a namespace topic */
        put: operations["putConsoleApiNamespacesNamespaceTopicsTopic"];
        post?: never;
        /** Delete a namespace topic */
        delete: operations["deleteConsoleApiNamespacesNamespaceTopicsTopic"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventTypes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the event types of a namespace topic
         * @description The catalog, sorted by name; each type without its schema and example (show the type for them).
         */
        get: operations["getConsoleApiNamespacesNamespaceTopicsTopicEventTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventTypes/{eventType}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show an event type of a namespace topic */
        get: operations["getConsoleApiNamespacesNamespaceTopicsTopicEventTypesEventType"];
        /**
         * Create or replace an event type of a namespace topic
         * @description Creates the type (201) or replaces it whole (200). A schema must be a valid JSON Schema draft 2020-12 that compiles, and an example given with one must match it (400 naming the field and what failed). At most 100 types per topic. Answered once publishers see the change: a topic with validateEvents checks the next publish against it.
         */
        put: operations["putConsoleApiNamespacesNamespaceTopicsTopicEventTypesEventType"];
        post?: never;
        /** Delete an event type of a namespace topic */
        delete: operations["deleteConsoleApiNamespacesNamespaceTopicsTopicEventTypesEventType"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a namespace topic's event subscriptions */
        get: operations["getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a namespace event subscription */
        get: operations["getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscription"];
        /**
         * Create or update a namespace event subscription
         * @description Creates the subscription (201) or replaces its definition (200). A new webhook endpoint is asked to agree first when the stack validates endpoints (`provisioningState` `AwaitingManualAction` until it does). Secret header values, signing secrets and client secrets are sealed and never shown. 409: the subscription was changed by another request at the same time. 503: a secret was given and the stack has no key to seal it. `eventTimeToLive` may not exceed the topic's retention, and defaults to it.
         */
        put: operations["putConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscription"];
        post?: never;
        /** Delete a namespace event subscription */
        delete: operations["deleteConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscription"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/getFullUrl": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Show a namespace subscription's full endpoint URL
         * @description The webhook's whole endpoint URL (documents show it without its query string), and an OAuth 2.0 client's whole token URL. 409: the subscription delivers to an AWS resource. 503: a query string is sealed and the stack has no key to open it.
         */
        post: operations["postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionGetFullUrl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show the endpoint's health */
        get: operations["getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Look up an event's deliveries, or list the message log
         * @description With `eventId`, that event's deliveries in the window; without it, a page of the log, newest first. What the log keeps follows the subscription's `deliveryLog`.
         */
        get: operations["getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resend a logged event
         * @description Sends a logged event again to this subscription as a new delivery, if the subscription's filter as it is now lets it through.
         */
        post: operations["postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionResend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/getSigningSecret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Show the signing secrets
         * @description What receivers verify with: the current secret (or public key) and the earlier ones still honoured.
         */
        post: operations["postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionGetSigningSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/rotateSigningSecret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret
         * @description Makes a new secret current (given, or made) and keeps honouring the earlier ones for `keepPreviousForMinutes`.
         */
        post: operations["postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionRotateSigningSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable the endpoint again
         * @description Resets its health: healthy, out of probation, and taking deliveries again if it was disabled.
         */
        post: operations["postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionEnable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause deliveries
         * @description The subscription's events are held, their time to live running, until it is resumed.
         */
        post: operations["postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionPause"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resume deliveries */
        post: operations["postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionResume"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start the endpoint's validation again
         * @description For an endpoint that has not agreed: a new validation code and window, and the handshake sent again. An endpoint that agreed (or never had to) is left as it is.
         */
        post: operations["postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionValidate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/sendTestEvent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Sends one `Gridwire.TestEvent` event to this subscription only, as a new delivery; its filter is not applied.
         */
        post: operations["postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionSendTestEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/replays": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the subscription's replays */
        get: operations["getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplays"];
        put?: never;
        /** Replay events from the topic's archive */
        post: operations["postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplays"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/replays/{replayId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a replay */
        get: operations["getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId"];
        put?: never;
        post?: never;
        /** Cancel a replay */
        delete: operations["deleteConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recover failed deliveries
         * @description Sends again, as new deliveries, the deliveries of the range that ended without success: dropped ones from the message log, dead-lettered ones from the dead letters.
         */
        post: operations["postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionRecover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/deadLetters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the subscription's dead-letter blobs */
        get: operations["getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeadLetters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/deadLetters/blob": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a dead-letter blob */
        get: operations["getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeadLettersBlob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/deadLetters/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay dead letters
         * @description Sends the events of dead-letter blobs (by keys or window) again as new deliveries, and marks the blobs replayed.
         */
        post: operations["postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeadLettersReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The session of the token
         * @description What the page shows and may do: the role, the scope and, for the portal, its branding.
         */
        get: operations["getConsoleApiSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type webhooks = Record<string, never>;
export type components = {
    schemas: {
        /** @description An event in the Event Grid schema. */
        EventGridEvent: {
            id: string;
            subject: string;
            eventType: string;
            /** Format: date-time */
            eventTime: string;
            data?: unknown;
            dataVersion?: string;
            topic?: string;
            metadataVersion?: string;
        };
        /** @description A CloudEvents 1.0 event in structured mode; extension attributes are further members. */
        CloudEvent: {
            /** @constant */
            specversion: "1.0";
            id: string;
            source: string;
            type: string;
            subject?: string;
            /** Format: date-time */
            time?: string;
            datacontenttype?: string;
            dataschema?: string;
            data?: unknown;
            data_base64?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description An event in a custom schema topic's own shape (its input mapping reads it). */
        CustomEvent: {
            [key: string]: unknown;
        };
        TopicRequest: {
            location?: string;
            tags?: {
                [key: string]: string;
            };
            properties?: {
                inputSchema?: string;
                inputSchemaMapping?: {
                    /** @constant */
                    inputSchemaMappingType: "Json";
                    properties: {
                        id?: {
                            sourceField: string;
                            defaultValue?: unknown;
                        };
                        topic?: {
                            sourceField: string;
                            defaultValue?: unknown;
                        };
                        eventTime?: {
                            sourceField: string;
                            defaultValue?: unknown;
                        };
                        subject?: {
                            sourceField?: string;
                            defaultValue?: string;
                        };
                        eventType?: {
                            sourceField?: string;
                            defaultValue?: string;
                        };
                        dataVersion?: {
                            sourceField?: string;
                            defaultValue?: string;
                        };
                    };
                };
                publicNetworkAccess?: string;
                deduplicationWindowInMinutes?: number;
                archive?: {
                    retentionInDays: number;
                } | null;
                /** @description Check each published event's data against its type's schema in the topic's event catalog (default false). */
                validateEvents?: boolean;
                /**
                 * @description With validateEvents: an event of a type the topic's catalog does not list passes (allow, the default) or is refused (reject).
                 * @enum {string}
                 */
                unknownEventTypes?: "allow" | "reject";
            };
        };
        RegenerateKeyRequest: {
            /** @enum {string} */
            keyName: "key1" | "key2";
        };
        /** @description An event type of a topic’s event catalog; every member is optional. */
        EventTypeRequest: {
            /** @description What events of this type say (at most 1024 characters). */
            description?: string;
            /** @description A JSON Schema (draft 2020-12, https://json-schema.org/draft/2020-12/schema) of the events' data: valid by the draft's meta-schema, compiling (no unknown keywords or formats, every $ref resolved within it), at most 64 KiB as compact JSON. A topic with validateEvents refuses events of this type whose data does not match it. */
            schema?: {
                [key: string]: unknown;
            };
            /** @description An example of the events' data: any JSON, at most 64 KiB as compact JSON; it must match the schema when both are given. */
            example?: unknown;
        };
        SubscriptionRequest: {
            properties: {
                destination: {
                    /** @constant */
                    endpointType: "WebHook";
                    properties: {
                        endpointUrl: string;
                        maxEventsPerBatch?: number;
                        preferredBatchSizeInKilobytes?: number;
                        deliveryAttributeMappings?: ({
                            name: string;
                            /** @constant */
                            type: "Static";
                            properties: {
                                value: string;
                                isSecret?: boolean;
                            };
                        } | {
                            name: string;
                            /** @constant */
                            type: "Dynamic";
                            properties: {
                                sourceField: string;
                            };
                        })[];
                        maxDeliveriesPerSecond?: number | null;
                        signing?: ({
                            secret: string;
                        } | {
                            /** @constant */
                            generate: true;
                            /** @enum {string} */
                            scheme?: "v1" | "v1a";
                        }) | null;
                        auth?: ({
                            /** @constant */
                            type: "OAuth2ClientCredentials";
                            tokenUrl: string;
                            clientId: string;
                            clientSecret?: string | null;
                            scope?: string;
                        } | {
                            /** @constant */
                            type: "AwsSigV4";
                            /** @enum {string} */
                            service: "execute-api" | "lambda";
                            region?: string;
                        }) | null;
                        tls?: {
                            clientCertificate?: string | ({
                                sha256Fingerprint: string;
                            } & {
                                [key: string]: unknown;
                            });
                            clientKey?: string | null;
                            caCertificates?: string | ({
                                sha256Fingerprint: string;
                            } & {
                                [key: string]: unknown;
                            })[];
                            trustPublicCas?: boolean;
                        } | null;
                    };
                } | {
                    /** @enum {string} */
                    endpointType: "AwsSqsQueue" | "AwsSnsTopic" | "AwsEventBridgeBus" | "AwsLambdaFunction" | "AwsKinesisStream";
                    properties: {
                        resourceArn: string;
                        maxEventsPerBatch?: number;
                        preferredBatchSizeInKilobytes?: number;
                        deliveryAttributeMappings?: ({
                            name: string;
                            /** @constant */
                            type: "Static";
                            properties: {
                                value: string;
                                isSecret?: boolean;
                            };
                        } | {
                            name: string;
                            /** @constant */
                            type: "Dynamic";
                            properties: {
                                sourceField: string;
                            };
                        })[];
                        maxDeliveriesPerSecond?: number | null;
                        /** @enum {string} */
                        invocationType?: "Event" | "RequestResponse";
                        partitionKeyField?: string;
                        roleArn?: string;
                        externalId?: string;
                    };
                };
                filter?: unknown;
                retryPolicy?: {
                    maxDeliveryAttempts?: number;
                    eventTimeToLiveInMinutes?: number;
                    retrySchedule?: string[];
                };
                /** @enum {string} */
                eventDeliverySchema?: "EventGridSchema" | "CloudEventSchemaV1_0" | "CustomInputSchema";
                labels?: string[];
                /** @enum {string} */
                deliveryLog?: "Failures" | "All";
                disableAfterFailingFor?: string | null;
                deadLetterDestination?: {
                    /** @constant */
                    endpointType: "StorageBlob";
                    properties: {
                        blobContainerName: string;
                        resourceId?: string;
                        roleArn?: string;
                        externalId?: string;
                    };
                } | null;
                deadLetterWithResourceIdentity?: {
                    deadLetterDestination: {
                        /** @constant */
                        endpointType: "StorageBlob";
                        properties: {
                            blobContainerName: string;
                            resourceId?: string;
                            roleArn?: string;
                            externalId?: string;
                        };
                    };
                    identity?: {
                        /** @enum {string} */
                        type: "SystemAssigned" | "UserAssigned";
                        userAssignedIdentity?: string;
                    };
                } | null;
                expirationTimeUtc?: (string) | null;
                orderedDelivery?: {
                    key: string;
                } | null;
            };
        };
        DeadLetterReplayRequest: {
            since?: string | null;
            until?: string | null;
            /** @description Exactly these blobs, instead of a window. */
            keys?: string[] | null;
            /** @description Only records dead-lettered for these reasons (default: all). */
            reason?: (("MaxDeliveryAttemptsExceeded" | "TimeToLiveExceeded" | "NonRetriableOutcome" | "EndpointDisabled") | ("MaxDeliveryAttemptsExceeded" | "TimeToLiveExceeded" | "NonRetriableOutcome" | "EndpointDisabled")[]) | null;
            /** @description Count only: queue nothing, mark nothing. */
            dryRun?: boolean | null;
            /** @description Replay blobs replayed before too. */
            force?: boolean | null;
        };
        NamespaceSubscriptionRequest: {
            properties: {
                deliveryConfiguration: {
                    /** @constant */
                    deliveryMode: "Push";
                    push: {
                        maxDeliveryCount?: number;
                        eventTimeToLive?: string;
                        retrySchedule?: string[];
                        destination: {
                            /** @constant */
                            endpointType: "WebHook";
                            properties: {
                                endpointUrl: string;
                                maxEventsPerBatch?: number;
                                preferredBatchSizeInKilobytes?: number;
                                deliveryAttributeMappings?: ({
                                    name: string;
                                    /** @constant */
                                    type: "Static";
                                    properties: {
                                        value: string;
                                        isSecret?: boolean;
                                    };
                                } | {
                                    name: string;
                                    /** @constant */
                                    type: "Dynamic";
                                    properties: {
                                        sourceField: string;
                                    };
                                })[];
                                maxDeliveriesPerSecond?: number | null;
                                signing?: ({
                                    secret: string;
                                } | {
                                    /** @constant */
                                    generate: true;
                                    /** @enum {string} */
                                    scheme?: "v1" | "v1a";
                                }) | null;
                                auth?: ({
                                    /** @constant */
                                    type: "OAuth2ClientCredentials";
                                    tokenUrl: string;
                                    clientId: string;
                                    clientSecret?: string | null;
                                    scope?: string;
                                } | {
                                    /** @constant */
                                    type: "AwsSigV4";
                                    /** @enum {string} */
                                    service: "execute-api" | "lambda";
                                    region?: string;
                                }) | null;
                                tls?: {
                                    clientCertificate?: string | ({
                                        sha256Fingerprint: string;
                                    } & {
                                        [key: string]: unknown;
                                    });
                                    clientKey?: string | null;
                                    caCertificates?: string | ({
                                        sha256Fingerprint: string;
                                    } & {
                                        [key: string]: unknown;
                                    })[];
                                    trustPublicCas?: boolean;
                                } | null;
                            };
                        } | {
                            /** @enum {string} */
                            endpointType: "AwsSqsQueue" | "AwsSnsTopic" | "AwsEventBridgeBus" | "AwsLambdaFunction" | "AwsKinesisStream";
                            properties: {
                                resourceArn: string;
                                maxEventsPerBatch?: number;
                                preferredBatchSizeInKilobytes?: number;
                                deliveryAttributeMappings?: ({
                                    name: string;
                                    /** @constant */
                                    type: "Static";
                                    properties: {
                                        value: string;
                                        isSecret?: boolean;
                                    };
                                } | {
                                    name: string;
                                    /** @constant */
                                    type: "Dynamic";
                                    properties: {
                                        sourceField: string;
                                    };
                                })[];
                                maxDeliveriesPerSecond?: number | null;
                                /** @enum {string} */
                                invocationType?: "Event" | "RequestResponse";
                                partitionKeyField?: string;
                                roleArn?: string;
                                externalId?: string;
                            };
                        };
                        deadLetterDestinationWithResourceIdentity?: {
                            deadLetterDestination: {
                                /** @constant */
                                endpointType: "StorageBlob";
                                properties: {
                                    blobContainerName: string;
                                    resourceId?: string;
                                    roleArn?: string;
                                    externalId?: string;
                                };
                            };
                            identity?: {
                                /** @enum {string} */
                                type: "SystemAssigned" | "UserAssigned";
                                userAssignedIdentity?: string;
                            };
                        } | null;
                    };
                };
                filtersConfiguration?: unknown;
                expirationTimeUtc?: (string) | null;
                labels?: string[];
                /** @enum {string} */
                deliveryLog?: "Failures" | "All";
                disableAfterFailingFor?: string | null;
                orderedDelivery?: {
                    key: string;
                } | null;
                /** @constant */
                eventDeliverySchema?: "CloudEventSchemaV1_0";
            };
        };
        Error: {
            error: {
                /** @description The status as a word: `BadRequest`, `NotFound`... */
                code: string;
                /** @description What went wrong, naming the field and the limit. */
                message: string;
                details?: {
                    code: string;
                    message: string;
                }[];
            };
        };
        GatewayError: {
            message: string;
        };
        Egress: {
            /** @description Public IPv4 addresses; empty: none fixed. */
            addresses: string[];
            staticAddresses: boolean;
            /** @description Requests go through an egress proxy. */
            proxy: boolean;
        };
        Topic: {
            /** @description The resource id, ARM-shaped. */
            id: string;
            name: string;
            /** @constant */
            type: "Microsoft.EventGrid/topics";
            tags: {
                [key: string]: string;
            };
            properties: {
                /** @constant */
                provisioningState: "Succeeded";
                /** @description Where to publish to this topic. */
                endpoint: string;
                /** @enum {string} */
                inputSchema: "EventGridSchema" | "CloudEventSchemaV1_0" | "CustomEventSchema";
                inputSchemaMapping?: {
                    /** @constant */
                    inputSchemaMappingType: "Json";
                    properties: {
                        [key: string]: {
                            sourceField?: string;
                            defaultValue?: string;
                        };
                    };
                };
                deduplicationWindowInMinutes: number;
                archive: {
                    retentionInDays: number;
                } | null;
                /** @description Check each published event's data against its type's schema in the topic's event catalog (default false). */
                validateEvents: boolean;
                /**
                 * @description With validateEvents: an event of a type the topic's catalog does not list passes (allow, the default) or is refused (reject).
                 * @enum {string}
                 */
                unknownEventTypes: "allow" | "reject";
                /** @description Present when the stack brings events into the topic from queues or buses. */
                sources?: components["schemas"]["TopicSource"][];
            };
            systemData: {
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                lastModifiedAt: string;
            };
        };
        TopicSource: {
            /** @enum {string} */
            kind: "sqs" | "eventBridge";
            name: string;
            /** @description The queue the publish function consumes. */
            queueArn: string;
            /** @enum {string} */
            format: "topic" | "eventBridge";
            /** @description A bus source's bus. */
            bus?: string;
            /** @description A bus source's rule pattern. */
            eventPattern?: unknown;
        };
        Keys: {
            key1: string;
            key2: string;
        };
        /** @description A topic’s event catalog, sorted by name. */
        EventTypeList: {
            value: {
                /** @description The type's resource id: /gridwire/topics/<topic>/eventTypes/<name>, or /gridwire/namespaces/<namespace>/topics/<topic>/eventTypes/<name>. */
                id: string;
                /** @description The event type, as first written (names match case-insensitively). */
                name: string;
                /** @enum {string} */
                type: "Gridwire/topics/eventTypes" | "Gridwire/namespaces/topics/eventTypes";
                systemData: {
                    /** @description When the type was first put (ISO 8601). */
                    createdAt: string;
                    /** @description When it was last put (ISO 8601). */
                    lastModifiedAt: string;
                };
                properties: {
                    /** @description null when it has none. */
                    description: string | null;
                    /** @description Whether it has a schema. */
                    hasSchema: boolean;
                    /** @description Whether it has an example. */
                    hasExample: boolean;
                };
            }[];
        };
        /** @description An event type of a topic’s event catalog. */
        EventType: {
            /** @description The type's resource id: /gridwire/topics/<topic>/eventTypes/<name>, or /gridwire/namespaces/<namespace>/topics/<topic>/eventTypes/<name>. */
            id: string;
            /** @description The event type, as first written (names match case-insensitively). */
            name: string;
            /** @enum {string} */
            type: "Gridwire/topics/eventTypes" | "Gridwire/namespaces/topics/eventTypes";
            systemData: {
                /** @description When the type was first put (ISO 8601). */
                createdAt: string;
                /** @description When it was last put (ISO 8601). */
                lastModifiedAt: string;
            };
            properties: {
                /** @description null when it has none. */
                description: string | null;
                /** @description The JSON Schema (draft 2020-12) of the events' data; null when it has none. */
                schema: {
                    [key: string]: unknown;
                } | null;
                /** @description An example of the events’ data; absent when it has none. */
                example?: unknown;
            };
        };
        Subscription: {
            id: string;
            name: string;
            /** @constant */
            type: "Microsoft.EventGrid/eventSubscriptions";
            properties: {
                /** @description The topic's resource id. */
                topic: string;
                /**
                 * @description `AwaitingManualAction` while a new webhook endpoint has not agreed and its validation URL is valid; `Failed` after.
                 * @enum {string}
                 */
                provisioningState: "Succeeded" | "AwaitingManualAction" | "Failed";
                /** @description Present for a webhook whose endpoint was (or is to be) validated. */
                endpointValidation?: components["schemas"]["EndpointValidation"];
                labels: string[];
                /** @enum {string} */
                deliveryLog: "Failures" | "All";
                /** @description How long the endpoint may fail every attempt before the subscription is disabled; null: never. */
                disableAfterFailingFor: string | null;
                /**
                 * Format: date-time
                 * @description Present only when the subscription expires.
                 */
                expirationTimeUtc?: string;
                /** @description Events with the same key are delivered one at a time, in order; null: no order. */
                orderedDelivery: {
                    key: string;
                } | null;
                destination: components["schemas"]["SubscriptionDestination"];
                filter: components["schemas"]["SubscriptionFilter"];
                retryPolicy: components["schemas"]["RetryPolicy"];
                /** @enum {string} */
                eventDeliverySchema: "EventGridSchema" | "CloudEventSchemaV1_0" | "CustomInputSchema";
                /** @description Absent: ended deliveries are dropped. */
                deadLetterDestination?: components["schemas"]["DeadLetterDestination"];
            };
            systemData: {
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                lastModifiedAt: string;
            };
        };
        EndpointValidation: {
            /** Format: date-time */
            startedAt: string;
            /** Format: date-time */
            validationUrlExpiresAt: string;
            /** @description Why the automatic handshake did not validate, once it failed. */
            handshakeError?: string;
        } | {
            /** Format: date-time */
            startedAt: string;
            /** Format: date-time */
            validatedAt: string;
        };
        SubscriptionDestination: components["schemas"]["WebhookDestination"] | components["schemas"]["ResourceDestination"];
        WebhookDestination: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            endpointType: "WebHook";
            properties: {
                /** @description The endpoint URL without its query string and fragment (`getFullUrl` shows it whole). */
                endpointBaseUrl: string;
                maxEventsPerBatch: number;
                preferredBatchSizeInKilobytes: number;
                /** @description Present only when there are some. */
                deliveryAttributeMappings?: components["schemas"]["DeliveryAttributeMapping"][];
                /** @description Absent: no limit of its own. */
                maxDeliveriesPerSecond?: number;
                /** @description Absent: requests are not signed. */
                signing?: components["schemas"]["Signing"];
                /** @description Absent: requests carry no credentials. */
                auth?: components["schemas"]["EndpointAuth"];
                /** @description Absent: no client certificate, the public CAs only. */
                tls?: components["schemas"]["EndpointTls"];
            };
        };
        DeliveryAttributeMapping: {
            name: string;
            /** @constant */
            type: "Static";
            properties: {
                value: string;
                /** @constant */
                isSecret: false;
            } | {
                /** @description A secret value is never shown: give it again with every PUT. */
                value: null;
                /** @constant */
                isSecret: true;
            };
        } | {
            name: string;
            /** @constant */
            type: "Dynamic";
            properties: {
                /** @description A dotted path into the event, such as data.tenant. */
                sourceField: string;
            };
        };
        Signing: {
            /** @constant */
            enabled: true;
            /**
             * @description `v1` (HMAC-SHA256) or `v1a` (Ed25519).
             * @enum {string}
             */
            scheme: "v1" | "v1a";
            /** @description The v1a key's public key (`whpk_...`), which receivers verify with; v1a only. */
            publicKey?: string;
            /** Format: date-time */
            secretCreatedTime: string;
            /** @description Until when each earlier secret still signs, after a rotation. */
            previousSecretsValidUntil: string[];
        };
        EndpointAuth: {
            /** @constant */
            type: "OAuth2ClientCredentials";
            /** @description The token URL without its query string and fragment (`getFullUrl` shows it whole). */
            tokenUrl: string;
            clientId: string;
            scope?: string;
            /** @description Never shown. */
            clientSecret: null;
        } | {
            /** @constant */
            type: "AwsSigV4";
            /** @enum {string} */
            service: "execute-api" | "lambda";
            /** @description Absent: the endpoint host's region, else the stack's. */
            region?: string;
        };
        EndpointTls: {
            /** @description The client certificate presented when the endpoint asks for one. */
            clientCertificate?: components["schemas"]["CertificateSummary"];
            /** @description Never shown; present with clientCertificate. */
            clientKey?: null;
            /** @description CA certificates trusted for this endpoint. */
            caCertificates?: components["schemas"]["CertificateSummary"][];
            /** @description `false`: only caCertificates are trusted. */
            trustPublicCas: boolean;
        };
        CertificateSummary: {
            /** @description SHA-256 of the certificate, `AB:CD:...`. */
            sha256Fingerprint: string;
            subject: string;
            issuer: string;
            /** Format: date-time */
            validFromTime: string;
            /** Format: date-time */
            expiresTime: string;
        };
        ResourceDestination: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            endpointType: "AwsSqsQueue" | "AwsSnsTopic" | "AwsEventBridgeBus" | "AwsLambdaFunction" | "AwsKinesisStream";
            properties: {
                resourceArn: string;
                maxEventsPerBatch: number;
                preferredBatchSizeInKilobytes: number;
                /** @description Present only when there are some. */
                deliveryAttributeMappings?: components["schemas"]["DeliveryAttributeMapping"][];
                /** @description Absent: no limit of its own. */
                maxDeliveriesPerSecond?: number;
                /**
                 * @description A Lambda function's invocation, when given (default `Event`).
                 * @enum {string}
                 */
                invocationType?: "Event" | "RequestResponse";
                /** @description A Kinesis record's partition key path, when given (default the subject). */
                partitionKeyField?: string;
                /** @description The role assumed to send, when given. */
                roleArn?: string;
                /** @description Sent when the role is assumed, when given. */
                externalId?: string;
            };
        };
        SubscriptionFilter: {
            /** @description null: every event type (none given, null, or `All` among them). */
            includedEventTypes: string[] | null;
            subjectBeginsWith?: string;
            subjectEndsWith?: string;
            isSubjectCaseSensitive?: boolean;
            enableAdvancedFilteringOnArrays?: boolean;
            advancedFilters?: components["schemas"]["AdvancedFilter"][];
        };
        AdvancedFilter: ({
            /** @enum {string} */
            operatorType: "NumberIn" | "NumberNotIn";
            /** @description A dotted path into the event as delivered (`data.color`, `subject`). */
            key: string;
            values: number[];
        } & {
            [key: string]: unknown;
        }) | ({
            /** @enum {string} */
            operatorType: "NumberLessThan" | "NumberGreaterThan" | "NumberLessThanOrEquals" | "NumberGreaterThanOrEquals";
            /** @description A dotted path into the event as delivered (`data.color`, `subject`). */
            key: string;
            value: number;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @enum {string} */
            operatorType: "NumberInRange" | "NumberNotInRange";
            /** @description A dotted path into the event as delivered (`data.color`, `subject`). */
            key: string;
            values: [
                number,
                number
            ][];
        } & {
            [key: string]: unknown;
        }) | ({
            /** @enum {string} */
            operatorType: "BoolEquals";
            /** @description A dotted path into the event as delivered (`data.color`, `subject`). */
            key: string;
            value: boolean;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @enum {string} */
            operatorType: "StringContains" | "StringNotContains" | "StringBeginsWith" | "StringNotBeginsWith" | "StringEndsWith" | "StringNotEndsWith" | "StringIn" | "StringNotIn";
            /** @description A dotted path into the event as delivered (`data.color`, `subject`). */
            key: string;
            values: string[];
        } & {
            [key: string]: unknown;
        }) | ({
            /** @enum {string} */
            operatorType: "IsNullOrUndefined" | "IsNotNull";
            /** @description A dotted path into the event as delivered (`data.color`, `subject`). */
            key: string;
        } & {
            [key: string]: unknown;
        });
        RetryPolicy: {
            maxDeliveryAttempts: number;
            eventTimeToLiveInMinutes: number;
            /** @description The subscription's own schedule (the last step repeating); absent: the profile's. */
            retrySchedule?: string[];
        };
        DeadLetterDestination: {
            /** @constant */
            endpointType: "StorageBlob";
            properties: {
                blobContainerName: string;
                resourceId?: string;
                roleArn?: string;
                externalId?: string;
            };
        };
        SubscriptionFullUrls: {
            /** @description The whole endpoint URL, its query string included. */
            endpointUrl: string;
            /** @description The whole OAuth 2.0 token URL; present only with OAuth2ClientCredentials auth. */
            tokenUrl?: string;
        };
        DeliveryLookup: {
            value: components["schemas"]["Delivery"][];
            searched: {
                /** Format: date-time */
                since: string;
                /** Format: date-time */
                until: string;
            };
            truncated: boolean;
            /** @description Why nothing was found, when nothing was. */
            note?: string;
        };
        Delivery: {
            eventId: string;
            deliveryId: string;
            /** Format: date-time */
            publishTime: string;
            /** @enum {string} */
            status: "Retrying" | "DeadLettered" | "Dropped" | "Delivered" | "NotDelivered";
            /**
             * @description Why it was dead-lettered or dropped (with those statuses only).
             * @enum {string}
             */
            reason?: "MaxDeliveryAttemptsExceeded" | "TimeToLiveExceeded" | "NonRetriableOutcome" | "EndpointDisabled" | "SubscriptionDeleted" | "DeadLetterStoreUnavailable" | "DeadLetterDestinationNotFound";
            /**
             * Format: date-time
             * @description While it is `Retrying`.
             */
            nextAttemptTime?: string;
            /** @description The delivery this one sends again. */
            resendOf?: string;
            /** @description Whether the log holds the event's text (so it can be resent). */
            eventLogged: boolean;
            attempts: {
                /** @description 1-based. */
                attempt: number;
                /** Format: date-time */
                time: string;
                /** @enum {string} */
                outcome: "NotFound" | "Disabled" | "Full" | "Unauthorized" | "BadRequest" | "TimedOut" | "Busy" | "PayloadTooLarge" | "Probation" | "Canceled" | "Aborted" | "SocketError" | "ResolutionError" | "Delivering" | "SessionQueueNotSupported" | "Forbidden" | "InvalidAzureFunctionDestination" | "GenericError" | "Delivered" | "NotAttempted";
                httpStatus?: number;
                durationMs?: number;
                error?: string;
                /** @description The first KiB of the endpoint's answer body. */
                response?: string;
            }[];
        };
        DeliveryLogPage: {
            /** @enum {string} */
            deliveryLog: "Failures" | "All";
            value: components["schemas"]["Delivery"][];
            searched: {
                /** Format: date-time */
                since: string;
                /** Format: date-time */
                until: string;
            };
            /**
             * Format: date-time
             * @description When older deliveries may follow: the next page is `until=<nextUntil>`.
             */
            nextUntil?: string;
        };
        Resend: {
            eventId: string;
            /** @description The new delivery. */
            deliveryId: string;
            /** @description The delivery sent again. */
            resendOf: string;
            /** @description The header the endpoint receives saying so. */
            header: string;
        };
        SigningSecrets: {
            /** @constant */
            scheme: "v1";
            /** @description `whsec_...` */
            secret: string;
            /** Format: date-time */
            createdTime: string;
            previousSecrets: ({
                /** @constant */
                scheme: "v1";
                /** @description `whsec_...` */
                secret: string;
                /** Format: date-time */
                validUntil: string;
            } | {
                /** @constant */
                scheme: "v1a";
                /** @description `whpk_...` */
                publicKey: string;
                /** Format: date-time */
                validUntil: string;
            })[];
        } | {
            /** @constant */
            scheme: "v1a";
            /** @description `whpk_...` */
            publicKey: string;
            /** Format: date-time */
            createdTime: string;
            previousSecrets: ({
                /** @constant */
                scheme: "v1";
                /** @description `whsec_...` */
                secret: string;
                /** Format: date-time */
                validUntil: string;
            } | {
                /** @constant */
                scheme: "v1a";
                /** @description `whpk_...` */
                publicKey: string;
                /** Format: date-time */
                validUntil: string;
            })[];
        };
        SubscriptionHealth: {
            /** @enum {string} */
            state: "Healthy" | "Probation" | "Unhealthy" | "Disabled" | "Paused";
            probationUntil: string | null;
            consecutiveFailures: number;
            lastOutcome: ("NotFound" | "Disabled" | "Full" | "Unauthorized" | "BadRequest" | "TimedOut" | "Busy" | "PayloadTooLarge" | "Probation" | "Canceled" | "Aborted" | "SocketError" | "ResolutionError" | "Delivering" | "SessionQueueNotSupported" | "Forbidden" | "InvalidAzureFunctionDestination" | "GenericError" | "Delivered") | null;
            lastFailureAt: string | null;
            lastSuccessAt: string | null;
            /** @description The endpoint, without query string or fragment. */
            endpointUrl: string;
            failingSince: string | null;
            disabledAt: string | null;
            disabledReason: ("Gone" | "FailingTooLong") | null;
            pausedAt: string | null;
            held: {
                events: number;
                oldestPublishedAt: string | null;
                /**
                 * Format: date-time
                 * @description The next wake, when there is one.
                 */
                until?: string;
                /** @enum {string} */
                state: "Holding" | "Draining" | "Waiting";
            } | null;
            /** @enum {string} */
            provisioningState: "Succeeded" | "AwaitingManualAction" | "Failed";
            endpointValidation?: components["schemas"]["EndpointValidation"];
            /** @description Present when the client certificate expires within 30 days, or has. */
            warnings?: {
                /** @enum {string} */
                code: "ClientCertificateExpiring" | "ClientCertificateExpired";
                message: string;
                /** Format: date-time */
                expiresTime: string;
                /** @description Whole days left; negative once expired. */
                daysLeft: number;
            }[];
        };
        TestEvent: {
            eventId: string;
            deliveryId: string;
            /** @constant */
            eventType: "Gridwire.TestEvent";
        };
        Replay: {
            id: string;
            /** @enum {string} */
            state: "Running" | "Completed" | "Cancelled" | "Failed";
            /** Format: date-time */
            since: string;
            /** Format: date-time */
            until: string;
            /** @description Absent: every type. */
            eventTypes?: string[];
            eventsFound: number;
            eventsQueued: number;
            eventsDelivered: number;
            /** @description Why it failed or who cancelled it. */
            reason?: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            lastModifiedAt: string;
        };
        Recovery: {
            /** Format: date-time */
            since: string;
            /** Format: date-time */
            until: string;
            dryRun: boolean;
            eventsQueued: number;
            dropped: {
                deliveries: number;
                eventsQueued: number;
                alreadyRecovered: number;
                matched: number;
                withoutText: number;
                filteredOut: number;
            };
            /** @description `null` for a subscription without a dead-letter destination. */
            deadLetters: {
                blobsSelected: number;
                recordsMatched: number;
                eventsQueued: number;
                blobsSkipped: number;
                failedKeys: string[];
            } | null;
            /**
             * Format: date-time
             * @description When the range holds more: the next call goes on with `until=<nextUntil>`.
             */
            nextUntil?: string;
        };
        DeadLetterList: {
            value: {
                key: string;
                /** Format: date-time */
                writtenAt: string;
                bytes: number;
                /**
                 * Format: date-time
                 * @description Its last replay, if it was replayed.
                 */
                replayedAt?: string;
            }[];
            /**
             * Format: date-time
             * @description When older blobs may follow: `?page=<nextPage>`.
             */
            nextPage?: string;
        };
        DeadLetterBlob: {
            key: string;
            /** Format: date-time */
            replayedAt?: string;
            records: {
                [key: string]: unknown;
            }[];
        };
        DeadLetterReplay: {
            dryRun: boolean;
            blobsSelected: number;
            recordsMatched: number;
            eventsQueued: number;
            blobsSkipped: number;
            skippedKeys: string[];
            notFound: string[];
            otherTopic: number;
            blobsFailed: number;
            failedKeys: string[];
            unmarkedKeys: string[];
            replayingElsewhereKeys: string[];
            notStarted: string[];
            blobs: {
                key: string;
                /** @description Absent for a blob skipped unread. */
                records?: number;
                otherTopic?: number;
                matched?: number;
                alreadyReplayed?: number;
                queued: number;
                /** @description Present only when events were queued. */
                marked?: boolean;
                /**
                 * Format: date-time
                 * @description Its previous replay, if any.
                 */
                replayedAt?: string;
                skipped: boolean;
                /** @constant */
                replayingElsewhere?: true;
                failed?: string;
            }[];
        };
        Namespace: {
            id: string;
            name: string;
            /** @constant */
            type: "Microsoft.EventGrid/namespaces";
            tags: {
                [key: string]: string;
            };
            properties: {
                /** @constant */
                provisioningState: "Succeeded";
            };
            systemData: {
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                lastModifiedAt: string;
            };
        };
        NamespaceTopic: {
            id: string;
            name: string;
            /** @constant */
            type: "Microsoft.EventGrid/namespaces/topics";
            properties: {
                /** @constant */
                provisioningState: "Succeeded";
                /** @constant */
                publisherType: "Custom";
                /** @constant */
                inputSchema: "CloudEventSchemaV1_0";
                eventRetentionInDays: number;
                deduplicationWindowInMinutes: number;
                archive: {
                    retentionInDays: number;
                } | null;
                /** @description Check each published event's data against its type's schema in the topic's event catalog (default false). */
                validateEvents: boolean;
                /**
                 * @description With validateEvents: an event of a type the topic's catalog does not list passes (allow, the default) or is refused (reject).
                 * @enum {string}
                 */
                unknownEventTypes: "allow" | "reject";
            };
            systemData: {
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                lastModifiedAt: string;
            };
        };
        NamespaceSubscription: {
            id: string;
            name: string;
            /** @constant */
            type: "Microsoft.EventGrid/namespaces/topics/eventSubscriptions";
            properties: {
                /**
                 * @description `AwaitingManualAction` while a new webhook endpoint has not agreed and its validation URL is valid; `Failed` after.
                 * @enum {string}
                 */
                provisioningState: "Succeeded" | "AwaitingManualAction" | "Failed";
                /** @description Present for a webhook whose endpoint was (or is to be) validated. */
                endpointValidation?: components["schemas"]["EndpointValidation"];
                labels: string[];
                /** @enum {string} */
                deliveryLog: "Failures" | "All";
                /** @description How long the endpoint may fail every attempt before the subscription is disabled; null: never. */
                disableAfterFailingFor: string | null;
                /**
                 * Format: date-time
                 * @description Present only when the subscription expires.
                 */
                expirationTimeUtc?: string;
                /** @description Events with the same key are delivered one at a time, in order; null: no order. */
                orderedDelivery: {
                    key: string;
                } | null;
                deliveryConfiguration: {
                    /** @constant */
                    deliveryMode: "Push";
                    push: {
                        maxDeliveryCount: number;
                        /** @description An ISO 8601 duration, such as PT10S, PT1H or P5D. */
                        eventTimeToLive: string;
                        /** @description The subscription's own schedule (the last step repeating); absent: the profile's. */
                        retrySchedule?: string[];
                        destination: components["schemas"]["SubscriptionDestination"];
                        /** @description Absent: ended deliveries are dropped. */
                        deadLetterDestinationWithResourceIdentity?: {
                            deadLetterDestination: components["schemas"]["DeadLetterDestination"];
                        };
                    };
                };
                /** @constant */
                eventDeliverySchema: "CloudEventSchemaV1_0";
                filtersConfiguration: components["schemas"]["SubscriptionFilter"];
            };
            systemData: {
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                lastModifiedAt: string;
            };
        };
        ConsoleSession: {
            id: string;
            /** @enum {string} */
            role: "operator" | "portal";
            scope: {
                /** @constant */
                role: "operator";
            } | {
                /** @constant */
                role: "portal";
                topic?: string;
                namespace?: string;
                labels: string[];
                permissions: ("write" | "pause" | "rotateSecret" | "resend" | "replay" | "sendTest")[];
            };
            /** Format: date-time */
            expiresAt: string;
            branding?: {
                title?: string;
                /** Format: uri */
                logoUrl?: string;
                accentColor?: string;
            };
        };
    };
    responses: {
        /** @description The request is not valid: the message names the field and the limit. */
        Error400: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No credentials, or credentials that are not valid. */
        Error401: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayError"];
            };
        };
        /** @description The credentials may not do this. */
        Error403: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayError"];
            };
        };
        /** @description The resource (or route) does not exist. */
        Error404: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayError"];
            };
        };
        /** @description The body is larger than the route takes. */
        Error413: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayError"];
            };
        };
        /** @description The content type is not one the route takes. */
        Error415: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Too many requests: wait as `Retry-After` says. */
        Error429: {
            headers: {
                /** @description Seconds to wait. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayError"];
            };
        };
        /** @description A dependency is unavailable: try again as `Retry-After` says. */
        Error503: {
            headers: {
                /** @description Seconds to wait. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The resource is in a state that refuses this. */
        Error409: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The stored resource cannot be read as the route reads it. */
        Error422: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
};
export type $defs = Record<string, never>;
export interface operations {
    postTopicsTopicApiEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description Binary mode: the event is in the headers. */
                "ce-specversion"?: "1.0";
                "ce-id"?: string;
                "ce-source"?: string;
                "ce-type"?: string;
                "ce-subject"?: string;
                "ce-time"?: string;
                /** @description W3C trace context, carried to the deliveries of the events. */
                traceparent?: string;
            };
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EventGridEvent"][] | components["schemas"]["CloudEvent"][] | components["schemas"]["CustomEvent"] | components["schemas"]["CustomEvent"][];
                "application/cloudevents+json": components["schemas"]["CloudEvent"];
                "application/cloudevents-batch+json": components["schemas"]["CloudEvent"][];
            };
        };
        responses: {
            /** @description Every event is durably queued. */
            200: {
                headers: {
                    /** @description On topics with a de-duplication window: the ids of events already published. */
                    "gridwire-duplicate-events"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postIamTopicsTopicApiEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description Binary mode: the event is in the headers. */
                "ce-specversion"?: "1.0";
                "ce-id"?: string;
                "ce-source"?: string;
                "ce-type"?: string;
                "ce-subject"?: string;
                "ce-time"?: string;
                /** @description W3C trace context, carried to the deliveries of the events. */
                traceparent?: string;
            };
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EventGridEvent"][] | components["schemas"]["CloudEvent"][] | components["schemas"]["CustomEvent"] | components["schemas"]["CustomEvent"][];
                "application/cloudevents+json": components["schemas"]["CloudEvent"];
                "application/cloudevents-batch+json": components["schemas"]["CloudEvent"][];
            };
        };
        responses: {
            /** @description Every event is durably queued. */
            200: {
                headers: {
                    /** @description On topics with a de-duplication window: the ids of events already published. */
                    "gridwire-duplicate-events"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postNamespacesNamespaceTopicsTopicAction: {
        parameters: {
            query?: never;
            header?: {
                /** @description Binary mode: the event is in the headers. */
                "ce-specversion"?: "1.0";
                "ce-id"?: string;
                "ce-source"?: string;
                "ce-type"?: string;
                "ce-subject"?: string;
                "ce-time"?: string;
                /** @description W3C trace context, carried to the deliveries of the events. */
                traceparent?: string;
            };
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description `<topic>:publish`: the namespace topic to publish to, then `:publish`. */
                topicAction: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/cloudevents+json": components["schemas"]["CloudEvent"];
                "application/cloudevents-batch+json": components["schemas"]["CloudEvent"][];
                "application/json": components["schemas"]["CloudEvent"][];
            };
        };
        responses: {
            /** @description Every event is durably queued. */
            200: {
                headers: {
                    /** @description On topics with a de-duplication window: the ids of events already published. */
                    "gridwire-duplicate-events"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getEventSubscriptionsValidate: {
        parameters: {
            query: {
                topic: string;
                subscription: string;
                code: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint is validated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsole: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": unknown;
                };
            };
            404: components["responses"]["Error404"];
        };
    };
    getConsoleFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A file of the console (its scripts and stylesheet), the path's rest. */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": unknown;
                };
            };
            404: components["responses"]["Error404"];
        };
    };
    getPortal: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": unknown;
                };
            };
            404: components["responses"]["Error404"];
        };
    };
    getOpenapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 document of this API. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
        };
    };
    getAdminEgress: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Where requests leave from. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Egress"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    scope: {
                        /** @constant */
                        role: "operator";
                    } | {
                        /** @constant */
                        role: "portal";
                        topic?: string;
                        namespace?: string;
                        /** @default [] */
                        labels?: string[];
                        /**
                         * @default [
                         *       "write",
                         *       "pause",
                         *       "rotateSecret",
                         *       "resend",
                         *       "replay",
                         *       "sendTest"
                         *     ]
                         */
                        permissions?: ("write" | "pause" | "rotateSecret" | "resend" | "replay" | "sendTest")[];
                    };
                    /** @default 60 */
                    expiresInMinutes?: number;
                };
            };
        };
        responses: {
            /** @description The session. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @description The bearer token (shown once). */
                        token: string;
                        /** Format: date-time */
                        expiresAt: string;
                        scope: {
                            /** @constant */
                            role: "operator";
                        } | {
                            /** @constant */
                            role: "portal";
                            topic?: string;
                            namespace?: string;
                            labels: string[];
                            permissions: ("write" | "pause" | "rotateSecret" | "resend" | "replay" | "sendTest")[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminSessionsRevokeAll: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every session made before now is refused. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        revokedAt: string;
                        note: string;
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminTopics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The topics. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["Topic"][];
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminTopicsTopic: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The topic. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topic"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    putAdminTopicsTopic: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["TopicRequest"];
            };
        };
        responses: {
            /** @description The topic, updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topic"];
                };
            };
            /** @description The topic, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topic"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    deleteAdminTopicsTopic: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such topic. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicListKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The keys. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Keys"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicRegenerateKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RegenerateKeyRequest"];
            };
        };
        responses: {
            /** @description The keys, one of them new. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Keys"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminTopicsTopicEventTypes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The catalog. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventTypeList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminTopicsTopicEventTypesEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event type name. */
                eventType: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The type, with its schema and example. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    putAdminTopicsTopicEventTypesEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event type name. */
                eventType: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EventTypeRequest"];
            };
        };
        responses: {
            /** @description The type, replaced. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            /** @description The type, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    deleteAdminTopicsTopicEventTypesEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event type name. */
                eventType: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such event type. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminTopicsTopicEventSubscriptions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscriptions (expired ones are deleted and left out). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["Subscription"][];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminTopicsTopicEventSubscriptionsSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscription. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    putAdminTopicsTopicEventSubscriptionsSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SubscriptionRequest"];
            };
        };
        responses: {
            /** @description The subscription, updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            /** @description The subscription, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    deleteAdminTopicsTopicEventSubscriptionsSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such subscription (or it had expired). */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicEventSubscriptionsSubscriptionGetFullUrl: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole URLs. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionFullUrls"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminTopicsTopicEventSubscriptionsSubscriptionDeliveries: {
        parameters: {
            query?: {
                /** @description One event's deliveries; without it, a page of the log, newest first. */
                eventId?: string;
                since?: string;
                until?: string;
                /** @description Deliveries a page lists at least (whole hours are listed), default 100. Not with `eventId`. */
                top?: number;
            };
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event's deliveries (with `eventId`), or a page of the log. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryLookup"] | components["schemas"]["DeliveryLogPage"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicEventSubscriptionsSubscriptionResend: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    eventId: string;
                    deliveryId?: string;
                    since?: unknown;
                    until?: unknown;
                };
            };
        };
        responses: {
            /** @description Queued as a new delivery. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Resend"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicEventSubscriptionsSubscriptionGetSigningSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The secrets in force. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningSecrets"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicEventSubscriptionsSubscriptionRotateSigningSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    scheme?: "v1" | "v1a";
                    secret?: string;
                    /** @default 1440 */
                    keepPreviousForMinutes?: number;
                };
            };
        };
        responses: {
            /** @description The secrets in force after the rotation. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningSecrets"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminTopicsTopicEventSubscriptionsSubscriptionHealth: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicEventSubscriptionsSubscriptionEnable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health after the reset. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicEventSubscriptionsSubscriptionPause: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health, paused. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicEventSubscriptionsSubscriptionResume: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health, resumed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicEventSubscriptionsSubscriptionValidate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event subscription. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicEventSubscriptionsSubscriptionSendTestEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestEvent"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminTopicsTopicEventSubscriptionsSubscriptionReplays: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The replays. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["Replay"][];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicEventSubscriptionsSubscriptionReplays: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    since: string;
                    until?: string;
                    eventTypes?: string[];
                };
            };
        };
        responses: {
            /** @description The replay, started. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Replay"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
                /** @description The replay id, as `POST .../replays` answered it. */
                replayId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The replay. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Replay"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    deleteAdminTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
                /** @description The replay id, as `POST .../replays` answered it. */
                replayId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The replay had ended already. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicEventSubscriptionsSubscriptionRecover: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    since: string;
                    until?: string;
                    dryRun?: boolean;
                };
            };
        };
        responses: {
            /** @description What was recovered (or, with `dryRun`, would be). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recovery"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminTopicsTopicEventSubscriptionsSubscriptionDeadLetters: {
        parameters: {
            query?: {
                since?: string;
                until?: string;
                page?: string;
            };
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of blobs, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminTopicsTopicEventSubscriptionsSubscriptionDeadLettersBlob: {
        parameters: {
            query: {
                /** @description A blob key from the dead-letter list. */
                key: string;
            };
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The blob and its records. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterBlob"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminTopicsTopicEventSubscriptionsSubscriptionDeadLettersReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["DeadLetterReplayRequest"];
            };
        };
        responses: {
            /** @description What the replay did (or, with `dryRun`, would do). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterReplay"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespaces: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The namespaces. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["Namespace"][];
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The namespace. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Namespace"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    putAdminNamespacesNamespace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    location?: string;
                    tags?: {
                        [key: string]: string;
                    };
                    properties?: Record<string, never>;
                };
            };
        };
        responses: {
            /** @description The namespace, updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Namespace"];
                };
            };
            /** @description The namespace, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Namespace"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    deleteAdminNamespacesNamespace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such namespace. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceListKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The keys. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Keys"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceRegenerateKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RegenerateKeyRequest"];
            };
        };
        responses: {
            /** @description The keys, one of them new. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Keys"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespaceTopics: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The topics. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["NamespaceTopic"][];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespaceTopicsTopic: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The topic. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceTopic"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    putAdminNamespacesNamespaceTopicsTopic: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    properties?: {
                        eventRetentionInDays?: number;
                        /** @constant */
                        inputSchema?: "CloudEventSchemaV1_0";
                        /** @constant */
                        publisherType?: "Custom";
                        deduplicationWindowInMinutes?: number;
                        archive?: {
                            retentionInDays?: number;
                        } | null;
                        /** @description Check each published event's data against its type's schema in the topic's event catalog (default false). */
                        validateEvents?: boolean;
                        /**
                         * @description With validateEvents: an event of a type the topic's catalog does not list passes (allow, the default) or is refused (reject).
                         * @enum {string}
                         */
                        unknownEventTypes?: "allow" | "reject";
                    };
                };
            };
        };
        responses: {
            /** @description The topic, updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceTopic"];
                };
            };
            /** @description The topic, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceTopic"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    deleteAdminNamespacesNamespaceTopicsTopic: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such topic. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespaceTopicsTopicEventTypes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The catalog. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventTypeList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespaceTopicsTopicEventTypesEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event type name. */
                eventType: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The type, with its schema and example. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    putAdminNamespacesNamespaceTopicsTopicEventTypesEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event type name. */
                eventType: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EventTypeRequest"];
            };
        };
        responses: {
            /** @description The type, replaced. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            /** @description The type, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    deleteAdminNamespacesNamespaceTopicsTopicEventTypesEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event type name. */
                eventType: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such event type. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespaceTopicsTopicEventSubscriptions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscriptions (expired ones are deleted and left out). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["NamespaceSubscription"][];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscription. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceSubscription"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    putAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NamespaceSubscriptionRequest"];
            };
        };
        responses: {
            /** @description The subscription, updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceSubscription"];
                };
            };
            /** @description The subscription, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceSubscription"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    deleteAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such subscription (or it had expired). */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionGetFullUrl: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole URLs. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionFullUrls"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionHealth: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeliveries: {
        parameters: {
            query?: {
                /** @description One event's deliveries; without it, a page of the log, newest first. */
                eventId?: string;
                since?: string;
                until?: string;
                /** @description Deliveries a page lists at least (whole hours are listed), default 100. Not with `eventId`. */
                top?: number;
            };
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event's deliveries (with `eventId`), or a page of the log. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryLookup"] | components["schemas"]["DeliveryLogPage"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionResend: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    eventId: string;
                    deliveryId?: string;
                    since?: unknown;
                    until?: unknown;
                };
            };
        };
        responses: {
            /** @description Queued as a new delivery. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Resend"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionGetSigningSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The secrets in force. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningSecrets"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionRotateSigningSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    scheme?: "v1" | "v1a";
                    secret?: string;
                    /** @default 1440 */
                    keepPreviousForMinutes?: number;
                };
            };
        };
        responses: {
            /** @description The secrets in force after the rotation. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningSecrets"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionEnable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health after the reset. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionPause: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health, paused. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionResume: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health, resumed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionValidate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event subscription. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceSubscription"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionSendTestEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestEvent"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplays: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The replays. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["Replay"][];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplays: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    since: string;
                    until?: string;
                    eventTypes?: string[];
                };
            };
        };
        responses: {
            /** @description The replay, started. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Replay"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
                /** @description The replay id, as `POST .../replays` answered it. */
                replayId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The replay. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Replay"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    deleteAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
                /** @description The replay id, as `POST .../replays` answered it. */
                replayId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The replay had ended already. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionRecover: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    since: string;
                    until?: string;
                    dryRun?: boolean;
                };
            };
        };
        responses: {
            /** @description What was recovered (or, with `dryRun`, would be). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recovery"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeadLetters: {
        parameters: {
            query?: {
                since?: string;
                until?: string;
                page?: string;
            };
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of blobs, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeadLettersBlob: {
        parameters: {
            query: {
                /** @description A blob key from the dead-letter list. */
                key: string;
            };
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The blob and its records. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterBlob"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postAdminNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeadLettersReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["DeadLetterReplayRequest"];
            };
        };
        responses: {
            /** @description What the replay did (or, with `dryRun`, would do). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterReplay"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiEgress: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Where requests leave from. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Egress"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiTopics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The topics. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["Topic"][];
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiTopicsTopic: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The topic. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topic"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    putConsoleApiTopicsTopic: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["TopicRequest"];
            };
        };
        responses: {
            /** @description The topic, updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topic"];
                };
            };
            /** @description The topic, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topic"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    deleteConsoleApiTopicsTopic: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such topic. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicListKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The keys. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Keys"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicRegenerateKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RegenerateKeyRequest"];
            };
        };
        responses: {
            /** @description The keys, one of them new. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Keys"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiTopicsTopicEventTypes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The catalog. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventTypeList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiTopicsTopicEventTypesEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event type name. */
                eventType: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The type, with its schema and example. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    putConsoleApiTopicsTopicEventTypesEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event type name. */
                eventType: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EventTypeRequest"];
            };
        };
        responses: {
            /** @description The type, replaced. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            /** @description The type, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    deleteConsoleApiTopicsTopicEventTypesEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event type name. */
                eventType: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such event type. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiTopicsTopicEventSubscriptions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscriptions (expired ones are deleted and left out). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["Subscription"][];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiTopicsTopicEventSubscriptionsSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscription. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    putConsoleApiTopicsTopicEventSubscriptionsSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SubscriptionRequest"];
            };
        };
        responses: {
            /** @description The subscription, updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            /** @description The subscription, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    deleteConsoleApiTopicsTopicEventSubscriptionsSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such subscription (or it had expired). */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicEventSubscriptionsSubscriptionGetFullUrl: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole URLs. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionFullUrls"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiTopicsTopicEventSubscriptionsSubscriptionDeliveries: {
        parameters: {
            query?: {
                /** @description One event's deliveries; without it, a page of the log, newest first. */
                eventId?: string;
                since?: string;
                until?: string;
                /** @description Deliveries a page lists at least (whole hours are listed), default 100. Not with `eventId`. */
                top?: number;
            };
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event's deliveries (with `eventId`), or a page of the log. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryLookup"] | components["schemas"]["DeliveryLogPage"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicEventSubscriptionsSubscriptionResend: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    eventId: string;
                    deliveryId?: string;
                    since?: unknown;
                    until?: unknown;
                };
            };
        };
        responses: {
            /** @description Queued as a new delivery. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Resend"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicEventSubscriptionsSubscriptionGetSigningSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The secrets in force. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningSecrets"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicEventSubscriptionsSubscriptionRotateSigningSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    scheme?: "v1" | "v1a";
                    secret?: string;
                    /** @default 1440 */
                    keepPreviousForMinutes?: number;
                };
            };
        };
        responses: {
            /** @description The secrets in force after the rotation. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningSecrets"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiTopicsTopicEventSubscriptionsSubscriptionHealth: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicEventSubscriptionsSubscriptionEnable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health after the reset. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicEventSubscriptionsSubscriptionPause: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health, paused. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicEventSubscriptionsSubscriptionResume: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health, resumed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicEventSubscriptionsSubscriptionValidate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event subscription. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicEventSubscriptionsSubscriptionSendTestEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestEvent"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiTopicsTopicEventSubscriptionsSubscriptionReplays: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The replays. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["Replay"][];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicEventSubscriptionsSubscriptionReplays: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    since: string;
                    until?: string;
                    eventTypes?: string[];
                };
            };
        };
        responses: {
            /** @description The replay, started. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Replay"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
                /** @description The replay id, as `POST .../replays` answered it. */
                replayId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The replay. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Replay"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    deleteConsoleApiTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
                /** @description The replay id, as `POST .../replays` answered it. */
                replayId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The replay had ended already. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicEventSubscriptionsSubscriptionRecover: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    since: string;
                    until?: string;
                    dryRun?: boolean;
                };
            };
        };
        responses: {
            /** @description What was recovered (or, with `dryRun`, would be). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recovery"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiTopicsTopicEventSubscriptionsSubscriptionDeadLetters: {
        parameters: {
            query?: {
                since?: string;
                until?: string;
                page?: string;
            };
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of blobs, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiTopicsTopicEventSubscriptionsSubscriptionDeadLettersBlob: {
        parameters: {
            query: {
                /** @description A blob key from the dead-letter list. */
                key: string;
            };
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The blob and its records. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterBlob"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiTopicsTopicEventSubscriptionsSubscriptionDeadLettersReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["DeadLetterReplayRequest"];
            };
        };
        responses: {
            /** @description What the replay did (or, with `dryRun`, would do). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterReplay"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespaces: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The namespaces. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["Namespace"][];
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The namespace. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Namespace"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    putConsoleApiNamespacesNamespace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    location?: string;
                    tags?: {
                        [key: string]: string;
                    };
                    properties?: Record<string, never>;
                };
            };
        };
        responses: {
            /** @description The namespace, updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Namespace"];
                };
            };
            /** @description The namespace, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Namespace"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    deleteConsoleApiNamespacesNamespace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such namespace. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceListKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The keys. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Keys"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceRegenerateKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RegenerateKeyRequest"];
            };
        };
        responses: {
            /** @description The keys, one of them new. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Keys"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespaceTopics: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The topics. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["NamespaceTopic"][];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespaceTopicsTopic: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The topic. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceTopic"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    putConsoleApiNamespacesNamespaceTopicsTopic: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    properties?: {
                        eventRetentionInDays?: number;
                        /** @constant */
                        inputSchema?: "CloudEventSchemaV1_0";
                        /** @constant */
                        publisherType?: "Custom";
                        deduplicationWindowInMinutes?: number;
                        archive?: {
                            retentionInDays?: number;
                        } | null;
                        /** @description Check each published event's data against its type's schema in the topic's event catalog (default false). */
                        validateEvents?: boolean;
                        /**
                         * @description With validateEvents: an event of a type the topic's catalog does not list passes (allow, the default) or is refused (reject).
                         * @enum {string}
                         */
                        unknownEventTypes?: "allow" | "reject";
                    };
                };
            };
        };
        responses: {
            /** @description The topic, updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceTopic"];
                };
            };
            /** @description The topic, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceTopic"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    deleteConsoleApiNamespacesNamespaceTopicsTopic: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such topic. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespaceTopicsTopicEventTypes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The catalog. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventTypeList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespaceTopicsTopicEventTypesEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event type name. */
                eventType: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The type, with its schema and example. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    putConsoleApiNamespacesNamespaceTopicsTopicEventTypesEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event type name. */
                eventType: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EventTypeRequest"];
            };
        };
        responses: {
            /** @description The type, replaced. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            /** @description The type, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    deleteConsoleApiNamespacesNamespaceTopicsTopicEventTypesEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event type name. */
                eventType: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such event type. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscriptions (expired ones are deleted and left out). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["NamespaceSubscription"][];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscription. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceSubscription"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    putConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NamespaceSubscriptionRequest"];
            };
        };
        responses: {
            /** @description The subscription, updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceSubscription"];
                };
            };
            /** @description The subscription, created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceSubscription"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    deleteConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description There was no such subscription (or it had expired). */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionGetFullUrl: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole URLs. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionFullUrls"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionHealth: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeliveries: {
        parameters: {
            query?: {
                /** @description One event's deliveries; without it, a page of the log, newest first. */
                eventId?: string;
                since?: string;
                until?: string;
                /** @description Deliveries a page lists at least (whole hours are listed), default 100. Not with `eventId`. */
                top?: number;
            };
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event's deliveries (with `eventId`), or a page of the log. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryLookup"] | components["schemas"]["DeliveryLogPage"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionResend: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    eventId: string;
                    deliveryId?: string;
                    since?: unknown;
                    until?: unknown;
                };
            };
        };
        responses: {
            /** @description Queued as a new delivery. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Resend"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionGetSigningSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The secrets in force. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningSecrets"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionRotateSigningSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    scheme?: "v1" | "v1a";
                    secret?: string;
                    /** @default 1440 */
                    keepPreviousForMinutes?: number;
                };
            };
        };
        responses: {
            /** @description The secrets in force after the rotation. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningSecrets"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionEnable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health after the reset. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionPause: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health, paused. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionResume: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's health, resumed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionHealth"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionValidate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event subscription. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceSubscription"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionSendTestEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestEvent"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplays: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The replays. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        value: components["schemas"]["Replay"][];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplays: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    since: string;
                    until?: string;
                    eventTypes?: string[];
                };
            };
        };
        responses: {
            /** @description The replay, started. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Replay"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
                /** @description The replay id, as `POST .../replays` answered it. */
                replayId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The replay. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Replay"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    deleteConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionReplaysReplayId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
                /** @description The replay id, as `POST .../replays` answered it. */
                replayId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The replay had ended already. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionRecover: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    since: string;
                    until?: string;
                    dryRun?: boolean;
                };
            };
        };
        responses: {
            /** @description What was recovered (or, with `dryRun`, would be). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recovery"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeadLetters: {
        parameters: {
            query?: {
                since?: string;
                until?: string;
                page?: string;
            };
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of blobs, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeadLettersBlob: {
        parameters: {
            query: {
                /** @description A blob key from the dead-letter list. */
                key: string;
            };
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The blob and its records. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterBlob"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    postConsoleApiNamespacesNamespaceTopicsTopicEventSubscriptionsSubscriptionDeadLettersReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The namespace name (3-50 letters, digits and hyphens). */
                namespace: string;
                /** @description The topic name (3-50 letters, digits and hyphens). */
                topic: string;
                /** @description The event subscription name (3-64 letters, digits and hyphens). */
                subscription: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["DeadLetterReplayRequest"];
            };
        };
        responses: {
            /** @description What the replay did (or, with `dryRun`, would do). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterReplay"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    getConsoleApiSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsoleSession"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            503: components["responses"]["Error503"];
        };
    };
}
